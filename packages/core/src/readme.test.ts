// The examples of packages/core/README.md, run as they are written there (imports aside).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigReader,
  EventPublisher,
  parseDuration,
  Registry,
  sleep,
  systemClock,
  toContext,
  VirtualClock,
  type CallContext,
  type Clock,
  type Duration,
  type ExecuteOptions,
  type Policy,
  type PolicyFn,
} from './index.js';

/** Waits `ms` before each call: a policy of your own. */
export class Delay implements Policy {
  readonly kind = 'delay';
  constructor(
    readonly name: string,
    private readonly ms: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    const ctx = toContext(options); // the context an outer layer passed down, or the caller's signal
    await sleep(this.clock, this.ms, ctx.signal); // abortable; leaves no timer and no listener
    return fn(ctx); // hand the same context inwards
  }
}

describe('README: testing on a VirtualClock', () => {
  let clock: VirtualClock;
  beforeEach(() => {
    clock = new VirtualClock();
  });
  afterEach(() => {
    expect(clock.pendingTimers).toBe(0); // no leaked timer
  });

  it('waits 50 ms, not 49, before the call', async () => {
    const calledAt: number[] = [];
    const call = new Delay('pace', 50, clock).execute(() => calledAt.push(clock.now()));
    await clock.advance(49);
    expect(calledAt).toEqual([]);
    await clock.advance(1);
    expect(calledAt).toEqual([50]);
    await expect(call).resolves.toBe(1);
  });

  it('an abort rejects at once with the reason', async () => {
    const controller = new AbortController();
    const call = new Delay('pace', 50, clock).execute(() => 'never', { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(call).rejects.toThrow('user left');
  });
});

describe('README: a registry of your own policy', () => {
  class DelayRegistry extends Registry<Delay, { ms?: number }> {
    constructor(options = {}) {
      super('DelayRegistry', (name, config) => new Delay(name, config.ms ?? 0), options);
    }
  }

  it('gets or creates', () => {
    const delays = new DelayRegistry({ defaultConfig: { ms: 50 }, configs: { slow: { ms: 500 } }, maxSize: 1000 });
    const pace = delays.get('pace');
    expect(delays.get('pace')).toBe(pace);
    expect(delays.get('bulk', 'slow')).toBeInstanceOf(Delay);
  });
});

describe('README: configuration checks', () => {
  interface PacerConfig {
    readonly ms?: Duration | undefined;
    readonly clock?: Clock | undefined;
  }

  class Pacer {
    readonly ms: number;
    readonly clock: Clock;
    constructor(
      readonly name: string,
      config?: PacerConfig,
    ) {
      const read = new ConfigReader<PacerConfig>('Pacer', name, config, ['ms', 'clock']);
      this.ms = read.duration('ms', 0, { gte: 0 });
      this.clock = read.clock();
    }
  }

  it('reads, and refuses with the documented messages', () => {
    expect(new Pacer('pace', { ms: '1.5s' }).ms).toBe(1500);
    expect(() => new Pacer('pace', { ms: -1 })).toThrow(new RangeError("Pacer 'pace': ms must be >= 0, got -1"));
    expect(() => new Pacer('pace', { msec: 5 } as never)).toThrow(new TypeError("Pacer 'pace': unknown option 'msec' (known options: ms, clock)"));
  });
});

describe('README: durations and events', () => {
  it('parses as documented', () => {
    expect([
      parseDuration('250ms'),
      parseDuration('1.5m'),
      parseDuration('1.001s'),
      parseDuration(' 10 s '),
      parseDuration('10'),
      parseDuration('-1s'),
    ]).toEqual([250, 90_000, 1001, 10_000, undefined, undefined]);
  });

  it('publishes as documented', () => {
    const clock = new VirtualClock(7);
    type DelayEvents = { waited: { ms: number } };
    const events = new EventPublisher<DelayEvents>('pace', clock);
    const seen: unknown[] = [];
    events.on('waited', (e) => seen.push([new Date(e.time).toISOString(), e.name, e.ms]));
    if (events.wants('waited')) events.emit('waited', { ms: 50 });
    expect(seen).toEqual([['2000-01-01T00:00:00.000Z', 'pace', 50]]);
  });
});
