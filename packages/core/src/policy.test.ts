import { getEventListeners } from 'node:events';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { onAbort, sleep } from './abort.js';
import { NEVER_ABORTED, ROOT_CONTEXT, toContext, type CallContext, type ExecuteOptions, type Policy, type PolicyFn } from './policy.js';
import { VirtualClock } from './virtual-clock.js';

describe('NEVER_ABORTED and ROOT_CONTEXT', () => {
  it('NEVER_ABORTED is a signal that has not aborted and cannot be aborted by anyone', () => {
    expect(NEVER_ABORTED).toBeInstanceOf(AbortSignal);
    expect(NEVER_ABORTED.aborted).toBe(false);
    expect(() => NEVER_ABORTED.throwIfAborted()).not.toThrow();
  });

  it('ROOT_CONTEXT is frozen, attempt 1, on NEVER_ABORTED', () => {
    expect(ROOT_CONTEXT).toEqual({ signal: NEVER_ABORTED, attempt: 1 });
    expect(ROOT_CONTEXT.signal).toBe(NEVER_ABORTED);
    expect(Object.isFrozen(ROOT_CONTEXT)).toBe(true);
  });
});

describe('toContext', () => {
  it('is the shared ROOT_CONTEXT when there is no signal', () => {
    expect(toContext(undefined)).toBe(ROOT_CONTEXT);
    expect(toContext({})).toBe(ROOT_CONTEXT);
    expect(toContext({ signal: undefined })).toBe(ROOT_CONTEXT);
  });

  it('is a new context on the caller’s signal, attempt 1', () => {
    const signal = new AbortController().signal;
    const ctx = toContext({ signal });
    expect(ctx).toEqual({ signal, attempt: 1 });
    expect(ctx.signal).toBe(signal);
    expect(toContext({ signal })).not.toBe(ctx);
  });

  it('is the passed-down context itself, as is, when a layer hands one down', () => {
    const ctx: CallContext = { signal: new AbortController().signal, attempt: 3 };
    expect(toContext(ctx)).toBe(ctx);
    expect(toContext(ROOT_CONTEXT)).toBe(ROOT_CONTEXT);
  });

  it('accepts an already aborted signal (the policy decides what to do with it)', () => {
    const signal = AbortSignal.abort('gone');
    expect(toContext({ signal }).signal.aborted).toBe(true);
  });

  it('refuses a signal that is not an AbortSignal with a TypeError', () => {
    expect(() => toContext({ signal: {} as AbortSignal })).toThrow(new TypeError('execute: options.signal must be an AbortSignal, got an object'));
    expect(() => toContext({ signal: 'stop' as unknown as AbortSignal })).toThrow(new TypeError("execute: options.signal must be an AbortSignal, got 'stop'"));
  });

  it('adds no listener to the signal', () => {
    const signal = new AbortController().signal;
    toContext({ signal });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

/**
 * A user's own policy, written the way the README shows: it takes the context passed down,
 * follows its signal, and hands it on, so it composes with Breakwater's own layers.
 */
class Delay implements Policy {
  readonly kind = 'delay';
  constructor(
    readonly name: string,
    private readonly clock: VirtualClock,
    private readonly ms: number,
  ) {}

  async execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    const ctx = toContext(options);
    await sleep(this.clock, this.ms, ctx.signal);
    return fn(ctx);
  }
}

/** Another, that counts attempts and hands a new context down (like a retry would). */
const twice = (inner: Policy): Policy => ({
  name: 'twice',
  kind: 'retry',
  async execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    const ctx = toContext(options);
    try {
      return await inner.execute(fn, { signal: ctx.signal, attempt: 1 });
    } catch {
      return inner.execute(fn, { signal: ctx.signal, attempt: 2 });
    }
  },
});

describe('Policy: a user’s own policy composes through CallContext', () => {
  it('runs fn after its delay with the context passed down', async () => {
    const clock = new VirtualClock();
    const seen: CallContext[] = [];
    const delay = new Delay('d', clock, 100);
    const outer = twice(delay);
    let calls = 0;
    const result = outer.execute((ctx) => {
      seen.push(ctx);
      if (++calls === 1) throw new Error('first attempt fails');
      return `ok on attempt ${ctx.attempt}`;
    });
    await clock.advance(100);
    expect(seen.map((c) => c.attempt)).toEqual([1]);
    await clock.advance(100);
    await expect(result).resolves.toBe('ok on attempt 2');
    expect(seen.every((c) => c.signal === NEVER_ABORTED)).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an abort of the caller’s signal reaches the inner layer at once and leaves no listener', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const run = twice(new Delay('d', clock, 1000)).execute(() => 'never', { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(run).rejects.toThrow('user left');
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('the types: execute takes PolicyFn and options or a context', () => {
    expectTypeOf<Policy['execute']>().parameter(1).toEqualTypeOf<ExecuteOptions | CallContext | undefined>();
    expectTypeOf(onAbort).returns.toEqualTypeOf<() => void>();
  });
});
