// The adapter between a Retry and p-retry: everything p-retry-specific is in this file.
//
// p-retry's loop (node_modules/p-retry/index.js) is, for attempt n = 1, 2, …:
//
//     try { return await input(n) }                     // an attempt that resolves ends the loop
//     catch (error) {                                   // a failed attempt:
//       await onFailedAttempt(context)                  //   (a no-op here)
//       await shouldConsumeRetry(context)               //   (always true here)
//       no retries left, or past maxRetryTime → throw   //   the last attempt failed (no time limit here)
//       a TypeError → throw error                       //   p-retry's own rule (never met: see below)
//       !(await shouldRetry(context)) → throw error     //   the caller says stop
//       wait the delay (0 here: no timer)               //   then the next attempt
//     }
//
// Breakwater's decisions plug into it like this:
// - Attempt 1 runs outside p-retry (Retry.execute): a call that needs no retry never enters it.
//   p-retry's attempt n is the call's attempt n + 1, and it is given `retries: maxAttempts − 2`,
//   so it makes attempts 2..maxAttempts.
// - p-retry's `input` runs one attempt of the call. An attempt that gives the call's result
//   resolves with it; one that failed (an error, or a value `retryOnResult` wants retried)
//   rejects with the call's one `AttemptFailed` error. The attempt's real outcome stays on the
//   call, so p-retry never sees a TypeError or a non-error and none of its own rules applies.
// - p-retry's `shouldRetry` asks the call (found through `context.error`): the call applies the
//   Resilience4j rules and the budget, publishes the `retry` event and waits on the injected
//   clock, then answers. p-retry's own delay is 0, which p-retry 7.1.1 skips without a timer.
// - When p-retry stops without a result (no retries left, or `shouldRetry` said no), it throws
//   the `AttemptFailed` error; `runAttemptsAfterFirst` then ends the call from what the call
//   knows (`end`: the last error as it was thrown, or the last value).
//   After attempt maxAttempts p-retry stops without asking `shouldRetry`: the call's `end` then
//   judges that attempt itself (an error not to be retried is still an `ignoredError`).

import * as pRetryModule from 'p-retry';
import type { Options as PRetryOptions, RetryContext } from 'p-retry';

/** What p-retry's loop asks of one retried call (a `RetriedCall`). */
export interface LoopedCall<T> {
  /**
   * Runs attempt `attempt` (2 or later). Resolves with the call's result; rejects with `failed`
   * when the attempt failed (its outcome stays on the call).
   */
  runAttempt(attempt: number, failed: Error): Promise<T>;
  /** After a failed attempt: whether to make the next one, once the wait before it is over. Never rejects. */
  shouldRetry(): boolean | Promise<boolean>;
  /** Ends the call without a result of an attempt: returns its last value or throws its last error. */
  end(): T;
}

/**
 * The options of p-retry's loop for a Retry of `maxAttempts`, built once, at construction: p-retry
 * copies its options and fills in the missing ones on every call, and adding a property to that
 * copy costs it microseconds, so every option it reads is given (and the object is not frozen).
 */
export function loopOptions(maxAttempts: number): PRetryOptions {
  return {
    // p-retry makes attempts 2..maxAttempts: its own first one plus maxAttempts − 2 retries.
    // (With maxAttempts 1 the loop is never entered: attempt 1 was the last.)
    retries: Math.max(0, maxAttempts - 2),
    // The waits run on the injected clock inside shouldRetry; p-retry's own delay is 0.
    minTimeout: 0,
    maxTimeout: 0,
    factor: 1,
    randomize: false,
    maxRetryTime: Infinity,
    onFailedAttempt: noop,
    shouldConsumeRetry: always,
    shouldRetry: askTheCall,
  };
}

/**
 * Runs attempts 2..maxAttempts of `call` in p-retry's loop, with `options` from
 * {@link loopOptions}: resolves with the result of the attempt that gave one; when the loop
 * stopped without one, settles as the call's `end` does. The only way into p-retry.
 */
export function runAttemptsAfterFirst<T>(call: LoopedCall<T>, options: PRetryOptions): Promise<T> {
  const failed = AttemptFailed.of(call);
  return pRetry((pRetryAttempt) => call.runAttempt(pRetryAttempt + 1, failed), options).then(undefined, (error: unknown) => {
    if (error === failed) return call.end();
    throw error;
  });
}

/**
 * What p-retry sees as the error of every failed attempt of one call: an `Error`, never a
 * `TypeError`, that knows its call (so one `shouldRetry` function serves every call). It never
 * reaches a caller.
 */
class AttemptFailed extends Error {
  declare readonly call: LoopedCall<unknown>;

  /**
   * Made without running the `Error` constructor (about 0.4 µs even with no stack): an object
   * of this class is all p-retry asks of it (`instanceof Error`).
   */
  static of(call: LoopedCall<unknown>): AttemptFailed {
    const error = Object.create(AttemptFailed.prototype) as { call: LoopedCall<unknown> };
    error.call = call;
    return error as AttemptFailed;
  }
}

/** p-retry's `shouldRetry`: the call whose attempt failed decides (and waits). */
function askTheCall(context: RetryContext): boolean | Promise<boolean> {
  return (context.error as AttemptFailed).call.shouldRetry();
}

function noop(): void {}

function always(): boolean {
  return true;
}

type PRetry = typeof pRetryModule.default;

/**
 * p-retry's function, from the ESM and the CommonJS build alike. p-retry is ESM only. The ESM
 * build gets it as the namespace's `default`. The CommonJS build `require`s p-retry (Node ≥ 20.19
 * loads an ES module with `require` and returns its namespace), and the bundler's interop then
 * wraps that namespace once more as a `default` (`(0, import_p_retry.default) is not a function`
 * without this), so there the function is one `default` further down.
 */
const pRetry: PRetry = unwrap(pRetryModule);

function unwrap(mod: unknown): PRetry {
  let candidate = mod;
  for (let depth = 0; depth < 3 && typeof candidate !== 'function'; depth++) {
    candidate = candidate !== null && typeof candidate === 'object' ? (candidate as { default?: unknown }).default : undefined;
  }
  if (typeof candidate !== 'function') throw new TypeError('@breakwater/retry: p-retry did not load as a function (its default export)');
  return candidate as PRetry;
}
