// The contract between the adaptive limiter and a limit algorithm: the limiter measures, the
// algorithm decides. An algorithm is pure in the sense that matters for testing: no clock, no
// timers, no I/O — its next limit depends only on the samples it was fed (and on the `random`
// it was given, for the algorithms that jitter).

/**
 * One measurement fed to a {@link LimitAlgorithm}: a call that ended (or, through a window, the
 * summary of a window of calls).
 *
 * @example
 * ```ts
 * const next = algorithm.onSample({ at: clock.now(), rtt: 42, inFlight: 17, didDrop: false });
 * ```
 */
export interface LimitSample {
  /** When the sample was taken, ms on the limiter's clock. */
  readonly at: number;
  /** The round-trip time, ms (a window: the average of its successful calls; 0 when a window holds only drops). */
  readonly rtt: number;
  /** Calls in flight when the call was admitted, itself included (a window: the largest of its calls). */
  readonly inFlight: number;
  /** The backend was overloaded: a time-out, or an error `isDrop` accepts (a window: any of its calls). */
  readonly didDrop: boolean;
}

/**
 * A rule that moves a concurrency limit from samples: Breakwater's `aimd`, `vegas` and
 * `gradient2`, or a user's own. `limit` is always an integer in `[minLimit, maxLimit]`, never NaN.
 *
 * @example
 * ```ts
 * const fixed: LimitAlgorithm = { name: 'fixed', limit: 10, onSample: () => 10 };
 * const limiter = new AdaptiveLimiter('pg', { algorithm: fixed });
 * ```
 */
export interface LimitAlgorithm {
  /** How the limiter's `describe()` and events name it (`'vegas'`, `'aimd'`, …). */
  readonly name: string;
  /** The limit in force. */
  readonly limit: number;
  /** Feeds one sample; returns the limit in force after it. */
  onSample(sample: LimitSample): number;
}
