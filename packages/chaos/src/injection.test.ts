import { VirtualClock, type CallContext } from '@breakwater/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FAKE, FAULT, makeChaos, realFn } from '../test/strategies.js';
import { scripted } from '../test/test-support.js';
import type { Chaos, ChaosOptions } from './index.js';

// When a call is injected, for all four strategies alike (contract: docs/chaos.md): Polly's order —
// the caller's signal, `enabled`, `rate`, then one draw of `random` — and `random() < rate`.

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs one call through `chaos` on `clock` to its end: 'injected' or 'real'. */
async function run(chaos: Chaos, clock: VirtualClock, behaved: number[], ctx?: CallContext): Promise<'injected' | 'real'> {
  const fn = realFn();
  const before = behaved.length;
  const start = clock.now();
  const call = chaos.execute(fn, ctx).then(
    (value) => value,
    (error: unknown) => error,
  );
  await clock.runAll();
  const outcome = await call;
  if (chaos.strategy === 'fault') return outcome === FAULT ? 'injected' : 'real';
  if (chaos.strategy === 'outcome') return outcome === FAKE ? 'injected' : 'real';
  if (chaos.strategy === 'behavior') return behaved.length > before ? 'injected' : 'real';
  return clock.now() > start ? 'injected' : 'real';
}

describe.each(['fault', 'latency', 'outcome', 'behavior'] as const)('%s', (strategy) => {
  const make = (common: ChaosOptions) => {
    const clock = new VirtualClock();
    const { chaos, behaved } = makeChaos(strategy, { clock, ...common });
    return { chaos, behaved, clock };
  };

  it('rate 0.3 on a scripted sequence injects exactly the calls whose draw is under 0.3', async () => {
    const draws = [0.1, 0.5, 0.29999, 0.3, 0.95, 0, 0.31, 0.2];
    const random = scripted(draws);
    const results: string[] = [];
    const { chaos, behaved, clock } = make({ enabled: true, rate: 0.3, random });
    for (let i = 0; i < draws.length; i++) {
      results.push(await run(chaos, clock, behaved));
    }
    expect(results).toEqual(['injected', 'real', 'injected', 'real', 'real', 'injected', 'real', 'injected']);
    expect(random.drawn).toBe(8);
    expect(chaos.metrics).toEqual({ numberOfInjectedCalls: 4, numberOfCallsNotInjected: 4 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('rate 1 injects every call, rate 0 none (a draw is still taken, as in Polly)', async () => {
    const always = make({ enabled: true, rate: 1, random: scripted([0.999999, 0]) });
    expect(await run(always.chaos, always.clock, always.behaved)).toBe('injected');
    expect(await run(always.chaos, always.clock, always.behaved)).toBe('injected');
    const random = scripted([0, 0.5]);
    const never = make({ enabled: true, rate: 0, random });
    expect(await run(never.chaos, never.clock, never.behaved)).toBe('real');
    expect(await run(never.chaos, never.clock, never.behaved)).toBe('real');
    expect(random.drawn).toBe(2);
    expect(never.chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 2 });
  });

  it('disabled (the default): no draw, no rate read, fn called with the caller’s context, counted as not injected', async () => {
    const random = scripted([]);
    const rate = vi.fn(() => 1);
    const { chaos, clock } = make({ rate, random });
    const seen: CallContext[] = [];
    const ac = new AbortController();
    expect(await chaos.execute((ctx) => (seen.push(ctx), 'real'))).toBe('real');
    expect(await chaos.execute((ctx) => (seen.push(ctx), 'real'), { signal: ac.signal })).toBe('real');
    const ctx = { signal: ac.signal, attempt: 3 };
    expect(await chaos.execute((c) => (seen.push(c), 'real'), ctx)).toBe('real');
    expect(seen[0]!.attempt).toBe(1);
    expect(seen[1]!.signal).toBe(ac.signal);
    expect(seen[2]).toBe(ctx);
    expect(random.drawn).toBe(0);
    expect(rate).not.toHaveBeenCalled();
    expect(chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 3 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('enabled as a function of the call: read first, per call; only true enables; no draw when it says no', async () => {
    const order: string[] = [];
    const flags: unknown[] = [true, false, 1, 'yes', true];
    const enabled = vi.fn((ctx: CallContext) => {
      order.push(`enabled ${ctx.attempt}`);
      return flags.shift() as boolean;
    });
    const rate = (ctx: CallContext) => {
      order.push(`rate ${ctx.attempt}`);
      return 1;
    };
    const draws = scripted([0.5, 0.5]);
    const random = () => {
      order.push('random');
      return draws();
    };
    const { chaos, behaved, clock } = make({ enabled, rate, random });
    const results: string[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      results.push(await run(chaos, clock, behaved, { signal: new AbortController().signal, attempt }));
    }
    expect(results).toEqual(['injected', 'real', 'real', 'real', 'injected']);
    expect(order).toEqual(['enabled 1', 'rate 1', 'random', 'enabled 2', 'enabled 3', 'enabled 4', 'enabled 5', 'rate 5', 'random']);
  });

  it('rate as a function of the call, its value clamped to [0, 1]; NaN or a non-number is 0', async () => {
    const rates: unknown[] = [0.5, 0.5, 7, -3, Number.NaN, '1', Number.POSITIVE_INFINITY];
    const random = scripted([0.4, 0.6, 0.99, 0, 0, 0, 0.999]);
    const { chaos, behaved, clock } = make({ enabled: true, rate: () => rates.shift() as number, random });
    const results: string[] = [];
    for (let i = 0; i < 7; i++) {
      results.push(await run(chaos, clock, behaved));
    }
    expect(results).toEqual(['injected', 'real', 'injected', 'real', 'real', 'real', 'injected']);
    expect(random.drawn).toBe(7);
  });

  it('a caller whose signal has aborted: rejected with its reason; nothing read, drawn or counted', async () => {
    const random = scripted([]);
    const enabled = vi.fn(() => true);
    const { chaos } = make({ enabled, random, rate: 1 });
    const ac = new AbortController();
    const reason = new Error('gone');
    ac.abort(reason);
    const fn = realFn();
    await expect(chaos.execute(fn, { signal: ac.signal })).rejects.toBe(reason);
    expect(fn.calls).toBe(0);
    expect(enabled).not.toHaveBeenCalled();
    expect(chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 0 });
    const off = make({ random });
    await expect(off.chaos.execute(fn, { signal: ac.signal })).rejects.toBe(reason);
    expect(off.chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 0 });
  });

  it('a signal aborted by enabled or rate while deciding: rejected with its reason, not injected, not counted', async () => {
    const ac = new AbortController();
    const { chaos } = make({ enabled: () => (ac.abort('while deciding'), true), rate: 1, random: () => 0 });
    const fn = realFn();
    await expect(chaos.execute(fn, { signal: ac.signal })).rejects.toBe('while deciding');
    expect(fn.calls).toBe(0);
    expect(chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 0 });
  });

  it.each(['enabled', 'rate', 'random'] as const)('%s that throws: the call is not injected, reported once', async (option) => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const boom = () => {
      throw new Error('bad callback');
    };
    const common: ChaosOptions = { enabled: true, rate: 1, random: () => 0, [option]: boom };
    const { chaos, behaved, clock } = make(common);
    expect(await run(chaos, clock, behaved)).toBe('real');
    expect(await run(chaos, clock, behaved)).toBe('real');
    expect(chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 2 });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(
      new RegExp(`^[A-Za-z]+Injection 'c': ${option} threw; the call is not injected \\(reported once\\): Error: bad callback`),
    );
    expect(warn.mock.calls[0]![1]).toEqual({ type: 'BreakwaterCallbackWarning' });
  });

  it('never throws synchronously: bad options are a rejection, a throwing fn a rejection', async () => {
    for (const enabled of [false, true]) {
      const { chaos } = make({ enabled, rate: 0, random: () => 0.5 });
      const bad = chaos.execute(() => 1, { signal: {} as AbortSignal });
      await expect(bad).rejects.toThrow(TypeError);
      await expect(chaos.execute(() => 1, 5 as never)).rejects.toThrow('execute: options must be an object');
      await expect(
        chaos.execute(() => {
          throw new Error('sync');
        }),
      ).rejects.toThrow('sync');
      expect(chaos.metrics.numberOfCallsNotInjected).toBe(1);
    }
  });
});
