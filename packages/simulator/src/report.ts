import type { Standing } from './standing.js';

/**
 * What a simulation run produces: the data every output (terminal table, `--json`, `--html`) is
 * rendered from. Plain, JSON-safe data: `--json` prints it as it is.
 *
 * Times are simulated milliseconds from the start of the scenario. Names and labels are user input
 * (from the scenario file): every renderer escapes them.
 *
 * @example
 * ```ts
 * const report: SimulationReport = simulate(parseScenarioFile('scenario.yml'));
 * writeFileSync('report.json', JSON.stringify(report));
 * ```
 */
export interface SimulationReport {
  /** The scenario as run. */
  readonly scenario: {
    readonly name: string;
    /** The scenario file, when it came from one. */
    readonly file?: string;
    readonly seed: number;
    /** With `--seeds N` (several seeds): every seed each configuration ran with, `seed` first. */
    readonly seeds?: readonly number[];
    /** Simulated time the traffic lasted, ms. */
    readonly durationMs: number;
    /** The traffic's phases, in order (a recorded trace is one phase named after its file). */
    readonly phases: readonly { readonly name: string; readonly startMs: number; readonly endMs: number }[];
  };
  /** One result per configuration compared (with `--sweep`, one per combination), in run order. */
  readonly configurations: readonly ConfigurationResult[];
  /** Configuration names best first, when more than one was compared (see the README for the order). */
  readonly ranking: readonly string[];
  /**
   * The ranking's figures, best first (with more than one configuration): each one's rank, score
   * (every criterion's mean, lowest and highest over the seeds) and tie group. Optional: a report
   * made by hand gets them from `standingsOf(report)`.
   */
  readonly standings?: readonly Standing[];
}

/**
 * What one configuration did over the whole scenario.
 *
 * @example
 * ```ts
 * for (const c of report.configurations) console.log(c.name, c.totals.rejected, c.timeToOpenMs);
 * ```
 */
export interface ConfigurationResult {
  /** The configuration's name (a sweep names each combination, e.g. `slidingWindowSize=20 waitDurationInOpenState=5s`). */
  readonly name: string;
  /** The options that tell it apart (a sweep's values; else the breaker's main options), for the tables. */
  readonly settings: Readonly<Record<string, string | number | boolean>>;
  /** The breaker's thresholds, % (drawn as lines against the rates). */
  readonly thresholds: { readonly failureRateThreshold: number; readonly slowCallRateThreshold: number };
  readonly totals: Counts;
  /** The same counts per phase, in the scenario's phase order. */
  readonly phases: readonly (Counts & { readonly name: string })[];
  /** Every state change of the breaker, in order. */
  readonly transitions: readonly StateChange[];
  /** When the breaker first left CLOSED for OPEN, ms; null when it never opened. */
  readonly timeToOpenMs: number | null;
  /** From the first opening to the first CLOSED after it, ms; null when it never opened or never closed again. */
  readonly timeToRecoverMs: number | null;
  /** The run over time, one point per bucket. */
  readonly series: TimeSeries;
  /**
   * With several seeds (`--seeds`): the totals of the run with each seed, in the order of
   * `scenario.seeds`. Everything else above (totals, phases, transitions, series) is the run with
   * the first seed, the scenario's.
   */
  readonly runs?: readonly SeedRun[];
}

/**
 * One configuration's run with one seed (with `--seeds`).
 *
 * @example
 * ```ts
 * const worst = Math.max(...(result.runs ?? []).map((r: SeedRun) => r.totals.failed));
 * ```
 */
export interface SeedRun {
  readonly seed: number;
  readonly totals: Counts;
  readonly timeToOpenMs: number | null;
  readonly timeToRecoverMs: number | null;
}

/**
 * Counts of a configuration over a stretch of the scenario.
 *
 * @example
 * ```ts
 * const { requests, rejected, breakerCallsPerRequest }: Counts = report.configurations[0]!.totals;
 * ```
 */
export interface Counts {
  /** Requests that arrived (each is one call of the pipeline). */
  readonly requests: number;
  /** Requests that ended with a result (a fallback's result included). */
  readonly succeeded: number;
  /** Requests that ended with an error from the backend or a time-out (not a rejection). */
  readonly failed: number;
  /**
   * Requests refused by a policy (breaker OPEN, bulkhead full, limiter): the caller got the
   * policy's refusal. With a retry, a request whose last attempt was refused counts here too.
   */
  readonly rejected: number;
  /** Calls the breaker recorded as slow. */
  readonly slow: number;
  /** Attempts ended by the time limiter. */
  readonly timeouts: number;
  /** Attempts after the first (retries). */
  readonly retries: number;
  /** Calls that went through the breaker (every attempt), rejected ones included. */
  readonly breakerCalls: number;
  /** `breakerCalls / requests` (0 when there were no requests). */
  readonly breakerCallsPerRequest: number;
  /**
   * Requests still waiting when the run ended: a backend that hangs with no time limiter to cut
   * it (`requests = succeeded + failed + rejected + unfinished`). Optional: added by the engine.
   */
  readonly unfinished?: number;
  /**
   * Backend calls that failed at once because the backend was at its `capacity` with `queueLimit`
   * calls waiting (`SimulatedOverloadError`, a 503); counted in the phase the request arrived in.
   * Optional: added by the engine.
   */
  readonly overloaded?: number;
  /**
   * How long the requests that succeeded took, from arrival to answer (waits for a permit, a
   * slot or a server included), ms: the median and the 99th percentile by nearest rank, read
   * from a histogram of 128 bins per power of two (within 0.8 % below the exact figure). Null
   * when none succeeded; with `--seeds`, the mean over the seeds. Optional: added by the engine.
   */
  readonly latencyP50Ms?: number | null;
  /** The 99th percentile of the same latencies, ms (as `latencyP50Ms`). */
  readonly latencyP99Ms?: number | null;
  /** Calls through the pipeline's hedge (each request's, each retry's when a retry is outside it). Only for a pipeline with a `hedge`. */
  readonly hedgeCalls?: number;
  /** Attempts the hedge started beyond the primary: the extra calls hedging cost. Only with a `hedge`. */
  readonly hedgedAttempts?: number;
  /** `hedgedAttempts / hedgeCalls` (0 without calls): the extra load, 0.08 is 8 % more calls. Only with a `hedge`. */
  readonly hedgedAttemptsPerCall?: number;
  /**
   * The hedge's calls by the attempt whose outcome the caller got (index 0: the primary, 1: the
   * first hedge, …; a call whose every attempt failed is the primary's). Only with a `hedge`.
   */
  readonly hedgeWins?: readonly number[];
  /** Calls through a chaos layer (each layer's, when there are several). Only for a pipeline with a `chaos` layer. */
  readonly chaosCalls?: number;
  /** Calls a chaos layer failed with an injected fault instead of calling on. Only with `chaos`. */
  readonly injectedFaults?: number;
  /** Calls a chaos layer delayed by its injected latency. Only with `chaos`. */
  readonly injectedLatencies?: number;
  /** Calls a chaos layer answered with its injected outcome (a success) instead of calling on. Only with `chaos`. */
  readonly injectedOutcomes?: number;
}

/**
 * A breaker state change.
 *
 * @example
 * ```ts
 * const opened = result.transitions.find((t: StateChange) => t.to === 'OPEN'); // { atMs: 1748, from: 'CLOSED', to: 'OPEN', cause: 'failure_rate' }
 * ```
 */
export interface StateChange {
  readonly atMs: number;
  readonly from: string;
  readonly to: string;
  /** The breaker's `TransitionCause`: failure_rate, slow_call_rate, half_open_trial, wait_elapsed, manual. */
  readonly cause: string;
}

/**
 * The run over time: parallel arrays, one entry per bucket of `bucketMs`.
 *
 * @example
 * ```ts
 * const { t, failureRate, state }: TimeSeries = result.series;
 * t.forEach((start, i) => console.log(start, failureRate[i], state[i]));
 * ```
 */
export interface TimeSeries {
  readonly bucketMs: number;
  /**
   * End of the last bucket, ms: `t.at(-1) + bucketMs`, or later when answers kept coming long after
   * the traffic. A series has at most twice the buckets its traffic spans (the traffic, then as long
   * again); past that, the last bucket runs to the end of the run and its values are per second
   * over its whole width, so memory stays bounded however long the last response takes.
   */
  readonly endMs: number;
  /** Start of each bucket, ms. */
  readonly t: readonly number[];
  /** Per second over the bucket (the last one: over its whole width, to `endMs`). */
  readonly requestsPerSecond: readonly number[];
  readonly rejectedPerSecond: readonly number[];
  readonly failedPerSecond: readonly number[];
  /** The breaker's rates at the end of the bucket, %; null while the window has fewer than `minimumNumberOfCalls`. */
  readonly failureRate: readonly (number | null)[];
  readonly slowCallRate: readonly (number | null)[];
  /**
   * Calls in the breaker's window at the end of the bucket, as a fraction of its size (0..1): of
   * `slidingWindowSize` for COUNT_BASED, of `minimumNumberOfCalls` for TIME_BASED (capped at 1).
   */
  readonly windowFill: readonly number[];
  /** The breaker's state at the end of the bucket (CLOSED, OPEN, HALF_OPEN, …; NONE for a pipeline without a breaker). */
  readonly state: readonly string[];
  /** Requests that succeeded, per second over the bucket (goodput). Optional: added by the engine. */
  readonly succeededPerSecond?: readonly number[];
  /** The median latency of the requests that succeeded in the bucket, ms (see `Counts.latencyP50Ms`); null when none did. Optional: added by the engine. */
  readonly latencyP50Ms?: readonly (number | null)[];
  /** The adaptive limiter's limit at the end of the bucket (the outermost one's); only for a pipeline with an `adaptiveLimiter`. */
  readonly limit?: readonly number[];
  /** The backend's `capacity` at the end of the bucket (null: unlimited); only when a phase gives the backend a capacity. */
  readonly capacity?: readonly (number | null)[];
}
