// The decorators package's own test helpers: tiny recording policies that honour the Policy
// contract, so the builder is tested without the real policy packages, and the functions and
// hostile promises its tests share. Not exported from index.ts. (`deferred`, `track` and `flush`
// are @breakwater/test-support's.)
import { onAbort, TimeoutError, toContext, type CallContext, type Clock, type Policy, type PolicyFn } from '@breakwater/core';
import { invoke, raceAbort } from '@breakwater/core/internal';

/** A policy of `kind` that logs `>name` on the way in (with the attempt it got) and `<name` on the way out. */
export function recorder<K extends string>(kind: K, name: string, log: string[], seen?: CallContext[]): Policy & { readonly kind: K } {
  return {
    name,
    kind,
    async execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
      const ctx = toContext(options);
      seen?.push(ctx);
      log.push(`>${name}`);
      try {
        return await invoke(fn, ctx);
      } finally {
        log.push(`<${name}`);
      }
    },
  };
}

/** A retry of kind 'retry': up to `maxAttempts`, no wait, each attempt with `attempt` set (and the caller's signal); stops when that signal has aborted. */
export function fakeRetry(name: string, maxAttempts: number, log?: string[]): Policy & { readonly kind: 'retry' } {
  return {
    name,
    kind: 'retry',
    async execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
      const ctx = toContext(options);
      for (let attempt = 1; ; attempt++) {
        log?.push(`${name}#${attempt}`);
        try {
          return await invoke(fn, { signal: ctx.signal, attempt });
        } catch (error) {
          if (attempt >= maxAttempts || ctx.signal.aborted) throw error;
        }
      }
    },
  };
}

/**
 * A time limiter of kind 'timeLimiter' on `clock`: hands `fn` a signal of its own (following the
 * caller's), aborts it with a TimeoutError after `timeoutMs`, and removes every timer and listener
 * when the call ends.
 */
export function fakeTimeLimiter(name: string, clock: Clock, timeoutMs: number): Policy & { readonly kind: 'timeLimiter' } {
  return {
    name,
    kind: 'timeLimiter',
    execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
      const ctx = toContext(options);
      if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
      const controller = new AbortController();
      return new Promise<T>((resolve, reject) => {
        const stop = onAbort(ctx.signal, () => {
          done();
          controller.abort(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
        const timer = clock.setTimeout(() => {
          done();
          const error = new TimeoutError(name, timeoutMs);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
        function done(): void {
          stop();
          clock.clearTimeout(timer);
        }
        invoke(fn, { signal: controller.signal, attempt: ctx.attempt }).then(
          (value) => {
            done();
            resolve(value);
          },
          (error: unknown) => {
            done();
            reject(error);
          },
        );
      });
    },
  };
}

/** A rate limiter of kind 'rateLimiter' whose `withPermits(n)` logs `name×n` on each call. */
export function fakeRateLimiter(name: string, log: string[]): Policy & { readonly kind: 'rateLimiter'; withPermits(permits: number): Policy } {
  const take = (permits: number): Policy => ({
    name,
    kind: 'rateLimiter',
    execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
      log.push(`${name}×${permits}`);
      return invoke(fn, toContext(options));
    },
  });
  return { ...take(1), kind: 'rateLimiter', withPermits: take };
}

/** A function that resolves after `ms` on `clock`, honouring `ctx.signal`. */
export function after<T>(clock: Clock, ms: number, value: T): PolicyFn<T> {
  return (ctx) =>
    new Promise<T>((resolve, reject) => {
      const stop = onAbort(ctx.signal, () => {
        clock.clearTimeout(timer);
        reject(ctx.signal.reason);
      });
      const timer = clock.setTimeout(() => {
        stop();
        resolve(value);
      }, ms);
    });
}

/**
 * A bulkhead of kind 'bulkhead' with one slot per call and no queue: the slot is taken when the
 * call enters and given back when the `fn` it runs settles (its `inUse` counts the slots taken).
 * It does not race the caller's signal itself.
 */
export function fakeBulkhead(name: string): Policy & { readonly kind: 'bulkhead'; readonly inUse: number } {
  let inUse = 0;
  return {
    name,
    kind: 'bulkhead',
    get inUse() {
      return inUse;
    },
    execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
      const ctx = toContext(options);
      inUse++;
      const outcome = invoke(fn, ctx);
      outcome.then(
        () => inUse--,
        () => inUse--,
      );
      return outcome;
    },
  };
}

/** A layer of `kind` that rejects at once with the signal's reason when its signal aborts (as Breakwater's policies do). */
export function racer<K extends string>(kind: K, name: string): Policy & { readonly kind: K } {
  return {
    name,
    kind,
    execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
      const ctx = toContext(options);
      return raceAbort(invoke(fn, ctx), ctx.signal);
    },
  };
}

/** A function that ignores its signal and resolves with `value` after `ms` on `clock`. */
export function deaf<T>(clock: Clock, ms: number, value: T): (_ctx?: unknown) => Promise<T> {
  return () => new Promise<T>((resolve) => clock.setTimeout(() => resolve(value), ms));
}

/**
 * Every outcome `promise` gives through its own `then`, in order: `[['value', v]]` or
 * `[['error', e]]` for a promise that settles once. Unlike @breakwater/test-support's `track`, it
 * logs each call of a handler, so a promise whose `then` calls both (or one twice) shows it.
 */
export function watch(promise: Promise<unknown>): { outcomes: Array<['value' | 'error', unknown]> } {
  const seen = { outcomes: [] as Array<['value' | 'error', unknown]> };
  promise.then(
    (value) => void seen.outcomes.push(['value', value]),
    (error: unknown) => void seen.outcomes.push(['error', error]),
  );
  return seen;
}

/** A thenable whose `then` getter throws `boom`. */
export const throwingThen = (boom: Error): PromiseLike<never> =>
  ({
    get then(): never {
      throw boom;
    },
  }) as never;
