import type { Outcome } from '@breakwater/core';
import { callbackThrew } from '@breakwater/core/internal';

/**
 * `drainPermissionsOnResult` around a limiter's calls: after each call the predicate sees its
 * outcome, and `true` drains the permissions left in the cycle. The call's own outcome passes
 * through unchanged; a predicate that throws drains nothing and is reported once (docs/conventions.md, user
 * callbacks). `onResult` / `onError` are bound once, so a call allocates no closure for them.
 * Exported for limiters kept elsewhere (`@breakwater/redis`), which drain the same way.
 *
 * @example
 * ```ts
 * const drainOnResult = new DrainOnResult(`RateLimiter 'pg'`, (o) => 'error' in o, () => limiter.drainPermissions());
 * await call().then(drainOnResult.onResult, drainOnResult.onError);
 * ```
 */
export class DrainOnResult {
  readonly #source: string;
  readonly #predicate: (outcome: Outcome) => boolean;
  readonly #drain: () => void;

  constructor(source: string, predicate: (outcome: Outcome) => boolean, drain: () => void) {
    this.#source = source;
    this.#predicate = predicate;
    this.#drain = drain;
  }

  /** The `then` handlers to put on a call's outcome. */
  readonly onResult = (result: unknown): unknown => {
    this.#afterCall({ result });
    return result;
  };

  readonly onError = (error: unknown): never => {
    this.#afterCall({ error });
    throw error;
  };

  #afterCall(outcome: Outcome): void {
    const predicate = this.#predicate;
    let drainNow: boolean;
    try {
      drainNow = predicate(outcome) === true;
    } catch (error) {
      callbackThrew(this.#source, 'drainPermissionsOnResult', predicate, error, "the call's outcome is kept and nothing is drained");
      return;
    }
    if (drainNow) this.#drain();
  }
}
