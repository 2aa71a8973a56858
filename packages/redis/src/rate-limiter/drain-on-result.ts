import { callbackThrew, type Outcome } from '@breakwater/core';

/**
 * `drainPermissionsOnResult` around a RedisRateLimiter's calls (as in `RateLimiter`): after each
 * call the predicate sees its outcome, and `true` drains the permissions left in the cycle, for
 * every instance (one round trip, not awaited by the call). The call's own outcome passes through
 * unchanged; a predicate that throws drains nothing and is reported once.
 */
export function drainOnResult<T>(
  outcome: Promise<T>,
  source: string,
  predicate: (outcome: Outcome) => boolean,
  drain: () => Promise<void>,
): Promise<T> {
  const after = (o: Outcome): void => {
    let drainNow: boolean;
    try {
      drainNow = predicate(o) === true;
    } catch (error) {
      callbackThrew(source, 'drainPermissionsOnResult', predicate, error, "the call's outcome is kept and nothing is drained");
      return;
    }
    if (drainNow) drain().then(undefined, () => {});
  };
  return outcome.then(
    (result) => {
      after({ result });
      return result;
    },
    (error: unknown) => {
      after({ error });
      throw error;
    },
  );
}
