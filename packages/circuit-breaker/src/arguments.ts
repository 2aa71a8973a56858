import { parseDuration, type Duration } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';

// The checks of the arguments of the breaker's manual methods (a bad one throws, naming the
// breaker, the method and the value given: a `RangeError` for a number out of range, else a
// `TypeError`). `source` is `CircuitBreaker '<name>'`.

/** A measured duration given to onSuccess / onResult / onError: a number of ms >= 0, or a duration string. */
export function measuredDuration(source: string, method: string, value: unknown): number {
  if (typeof value === 'number' && value >= 0 && value < Infinity) return value;
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms !== undefined && ms >= 0) return ms;
  const message = `${source}: ${method}(durationMs, …) needs a duration in ms (a finite number >= 0, or a string like '250ms'), got ${describeValue(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

/** The wait of `transitionToOpenStateFor(wait)`, in ms: finite, >= 0. */
export function openWaitFor(source: string, wait: Duration): number {
  const ms = parseDuration(wait);
  if (ms !== undefined && ms >= 0 && ms !== Infinity) return ms;
  const message = `${source}: transitionToOpenStateFor(wait) needs a duration (ms >= 0, finite, or a string like '250ms', '10s', '1.5m', '2h'), got ${describeValue(wait)}`;
  throw typeof wait === 'number' ? new RangeError(message) : new TypeError(message);
}

/** The wait of `transitionToOpenStateUntil(clockTime)` at `now`, in ms: `clockTime` a finite time of the clock, not before now. */
export function openWaitUntil(source: string, clockTime: number, now: () => number): number {
  if (typeof clockTime !== 'number') {
    throw new TypeError(`${source}: transitionToOpenStateUntil(clockTime) needs a time of the breaker's clock (ms), got ${describeValue(clockTime)}`);
  }
  const at = now();
  if (!(clockTime >= at) || clockTime === Infinity) {
    throw new RangeError(`${source}: transitionToOpenStateUntil(clockTime) needs a finite clock time not before now (${at}), got ${describeValue(clockTime)}`);
  }
  return clockTime - at;
}
