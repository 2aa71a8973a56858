// The retry package's own test helpers (`deferred`, `track` and `flush`, which every package's
// tests use, come from @breakwater/test-support).
import type { CallContext, VirtualClock } from '@breakwater/core';

/** One scripted attempt: resolve with a value, reject with an error, or throw synchronously. */
export type Step = { value: unknown } | { reject: unknown } | { throw: unknown } | { hang: true };

/**
 * A function that plays `steps` in order (the last one repeats) and records when each attempt
 * started on the clock and which `ctx` it got.
 */
export function scripted(
  clock: VirtualClock,
  steps: readonly Step[],
): {
  fn: (ctx: CallContext) => unknown;
  starts: number[];
  contexts: CallContext[];
} {
  const starts: number[] = [];
  const contexts: CallContext[] = [];
  const fn = (ctx: CallContext): unknown => {
    const step = steps[Math.min(starts.length, steps.length - 1)]!;
    starts.push(clock.now());
    contexts.push(ctx);
    if ('value' in step) return Promise.resolve(step.value);
    if ('reject' in step) return Promise.reject(step.reject);
    if ('throw' in step) throw step.throw;
    return new Promise(() => {});
  };
  return { fn, starts, contexts };
}

/** A deterministic random source cycling through `values`. */
export function randoms(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}
