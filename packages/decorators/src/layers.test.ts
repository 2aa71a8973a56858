// The layer protocols the builder knows (core's Policy and ArgsAwareLayer): a user's own policy
// that implements ArgsAwareLayer composes like a Fallback and sees the wrapped function's arguments.
import type { ArgsAwareLayer, CallContext, ExecuteOptions, InnerLayers, Policy, PolicyFn } from '@breakwater/core';
import { enterCall, follow, invoke, isArgsAwareLayer } from '@breakwater/core/internal';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { decorate, Fallback, Pipeline } from './index.js';
import { checkKind, layerLabel } from './kinds.js';
import { fakeRetry, recorder } from '../test/test-support.js';

/** A user's own args-aware layer: logs the arguments of each call on the way in, and of each failure. */
class ArgsLog implements Policy, ArgsAwareLayer {
  readonly kind = 'argsLog';
  readonly seen: Array<{ args: readonly unknown[]; attempt: number }> = [];
  readonly failed: unknown[][] = [];
  constructor(readonly name: string) {}
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    return this.runLayer((f, c) => invoke(f, c), fn as PolicyFn<unknown>, ctx, []) as Promise<T>;
  }
  runLayer(inner: InnerLayers, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown> {
    this.seen.push({ args, attempt: ctx.attempt });
    return follow(inner(fn, ctx, args)).catch((error: unknown) => {
      this.failed.push([...args]);
      throw error;
    });
  }
}

describe('ArgsAwareLayer: a user policy that sees the wrapped function’s arguments', () => {
  it('is run through runLayer with the arguments of wrap, and none for execute, at its place in the order', async () => {
    const log: string[] = [];
    const mine = new ArgsLog('a');
    const pipeline = decorate()
      .with(recorder('outer', 'o', log))
      .with(mine)
      .withRetry(fakeRetry('pg', 2, log));
    expect(pipeline.describe()).toBe("outer 'o' → argsLog 'a' → Retry 'pg' → fn");
    const quote = pipeline.wrap((ctx, symbol: string, n: number) => {
      log.push(`fn ${symbol} ${n} #${ctx.attempt}`);
      if (ctx.attempt === 1) throw new Error('once');
      return `${symbol}×${n}`;
    });
    await expect(quote('X', 2)).resolves.toBe('X×2');
    expect(log).toEqual(['>o', 'pg#1', 'fn X 2 #1', 'pg#2', 'fn X 2 #2', '<o']);
    expect(mine.seen).toEqual([{ args: ['X', 2], attempt: 1 }]);
    await expect(pipeline.execute(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(mine.seen[1]).toEqual({ args: [], attempt: 1 });
    expect(mine.failed).toEqual([[]]);
  });

  it('its execute still works on its own, and a plain Policy is not one', async () => {
    const mine = new ArgsLog('a');
    await expect(mine.execute(() => 1)).resolves.toBe(1);
    expect(isArgsAwareLayer(mine)).toBe(true);
    expect(isArgsAwareLayer(recorder('x', 'x', []))).toBe(false);
    expect(isArgsAwareLayer(new Fallback('f', () => 0))).toBe(true);
    expectTypeOf(new Fallback('f', () => 0)).toExtend<ArgsAwareLayer>();
  });
});

describe('Pipeline.of', () => {
  it('is decorate(name)', () => {
    const p = Pipeline.of('pay');
    expect(p).toBeInstanceOf(Pipeline);
    expect([p.name, p.describe(), p.policies, p.warnings]).toEqual(['pay', 'fn', [], []]);
    expect(Pipeline.of().name).toBe('pipeline');
    expect(() => Pipeline.of('')).toThrow(new TypeError("Pipeline.of: name must be a non-empty string, got ''"));
  });
});

describe('built-in kinds', () => {
  it('a misspelt kind is a type error; a user kind prints as given', () => {
    const tl = recorder('timeLimiter', 't', []);
    // @ts-expect-error 'timelimiter' is not one of Breakwater's kinds
    expect(() => checkKind('withTimeLimiter', tl, ['timelimiter'])).toThrow(TypeError);
    expect(() => checkKind('withTimeLimiter', tl, ['timeLimiter'])).not.toThrow();
    expect([layerLabel('timeLimiter', 't'), layerLabel('audit', 'h')]).toEqual(["TimeLimiter 't'", "audit 'h'"]);
  });
});
