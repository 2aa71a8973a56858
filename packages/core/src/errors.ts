/**
 * The base of every error Breakwater raises itself. Each subclass has `name` (set once, on its
 * prototype, so that building an error costs no more than building an `Error`) equal to its class
 * name (except {@link TimeoutError}, named `'TimeoutError'` like the DOM's) and carries the name
 * of the component that raised it.
 *
 * @example
 * ```ts
 * try { await pay.execute(call); } catch (e) { if (e instanceof BreakwaterError) metrics.rejected(e.name); }
 * ```
 */
export class BreakwaterError extends Error {
  static {
    this.prototype.name = 'BreakwaterError';
  }
}

/**
 * Builds an error without capturing a stack (cheap rejections on a hot path): `Error.stackTraceLimit`
 * is 0 while `build` runs and restored afterwards, even if it throws. The error's `stack` is then
 * its header alone (`CallNotPermittedError: CircuitBreaker 'pg' is OPEN …`).
 *
 * @example
 * ```ts
 * const rejection = writableStackTrace
 *   ? new CallNotPermittedError(name, 'OPEN')
 *   : withoutStack(() => new CallNotPermittedError(name, 'OPEN'));
 * ```
 */
export function withoutStack<E extends Error>(build: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * A circuit breaker refused the call (OPEN or FORCED_OPEN, or HALF_OPEN with no permit left).
 *
 * @example
 * ```ts
 * breaker.transitionToForcedOpenState();
 * await breaker.execute(call).catch((e) => e instanceof CallNotPermittedError && e.state); // 'FORCED_OPEN'
 * ```
 */
export class CallNotPermittedError extends BreakwaterError {
  static {
    this.prototype.name = 'CallNotPermittedError';
  }
  constructor(
    readonly circuitBreakerName: string,
    readonly state: string,
  ) {
    super(`CircuitBreaker '${circuitBreakerName}' is ${state} and does not permit further calls`);
  }
}

/**
 * A time limiter gave up on a call. `name` is `'TimeoutError'`, like the DOM's.
 *
 * @example
 * ```ts
 * await limiter.execute(slow).catch((e) => e instanceof TimeoutError && e.timeoutMs); // 600
 * ```
 */
export class TimeoutError extends BreakwaterError {
  static {
    this.prototype.name = 'TimeoutError';
  }
  constructor(
    readonly timeLimiterName: string,
    readonly timeoutMs: number,
  ) {
    super(`TimeLimiter '${timeLimiterName}' timed out after ${timeoutMs} ms`);
  }
}

/**
 * A bulkhead (semaphore or pool) had no room for the call.
 *
 * @example
 * ```ts
 * await bulkhead.execute(call).catch((e) => e instanceof BulkheadFullError && e.bulkheadName); // 'db'
 * ```
 */
export class BulkheadFullError extends BreakwaterError {
  static {
    this.prototype.name = 'BulkheadFullError';
  }
  constructor(
    readonly bulkheadName: string,
    detail = 'is full and does not permit further calls',
  ) {
    super(`Bulkhead '${bulkheadName}' ${detail}`);
  }
}

/**
 * A rate limiter refused the call. `waitMs` is how long until a permit would be free
 * (use it for `Retry-After`). An adaptive limiter or throttle refuses with it too (`waitMs` 0: no
 * estimate), its `message` saying why.
 *
 * @example
 * ```ts
 * await limiter.execute(call).catch((e) => e instanceof RequestNotPermittedError && res.set('Retry-After', Math.ceil(e.waitMs / 1000)));
 * ```
 */
export class RequestNotPermittedError extends BreakwaterError {
  static {
    this.prototype.name = 'RequestNotPermittedError';
  }
  constructor(
    readonly rateLimiterName: string,
    readonly waitMs: number,
    message = `RateLimiter '${rateLimiterName}' does not permit further calls (a permit is free in ${waitMs} ms)`,
  ) {
    super(message);
  }
}

/**
 * A retry ran out of attempts while the result was still one to retry (`failAfterMaxAttempts`).
 *
 * @example
 * ```ts
 * const retry = new Retry('pg', { retryOnResult: (r) => r.status === 503, failAfterMaxAttempts: true });
 * await retry.execute(call).catch((e) => e instanceof MaxRetriesExceededError && e.lastResult);
 * ```
 */
export class MaxRetriesExceededError extends BreakwaterError {
  static {
    this.prototype.name = 'MaxRetriesExceededError';
  }
  constructor(
    readonly retryName: string,
    readonly attempts: number,
    readonly lastResult: unknown,
  ) {
    super(`Retry '${retryName}' has exhausted its ${attempts} attempts and the result is still to be retried`);
  }
}

/**
 * A circuit breaker was asked for a transition its state machine does not allow.
 *
 * @example
 * ```ts
 * breaker.transitionToForcedOpenState();
 * expect(() => breaker.transitionToHalfOpenState()).toThrow(IllegalStateTransitionError);
 * ```
 */
export class IllegalStateTransitionError extends BreakwaterError {
  static {
    this.prototype.name = 'IllegalStateTransitionError';
  }
  constructor(
    readonly circuitBreakerName: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`CircuitBreaker '${circuitBreakerName}' cannot move from ${from} to ${to}`);
  }
}

/**
 * The error a circuit breaker records (and reports in its `error` event) for a resolved value
 * that matches `recordResult`. The caller still receives the value; this error is never thrown
 * to the caller.
 *
 * @example
 * ```ts
 * breaker.on('error', (e) => { if (e.error instanceof ResultRecordedAsFailureError) log(e.error.result); });
 * ```
 */
export class ResultRecordedAsFailureError extends BreakwaterError {
  static {
    this.prototype.name = 'ResultRecordedAsFailureError';
  }
  constructor(
    readonly circuitBreakerName: string,
    readonly result: unknown,
  ) {
    super(`CircuitBreaker '${circuitBreakerName}' has recorded a result as a failure`);
  }
}
