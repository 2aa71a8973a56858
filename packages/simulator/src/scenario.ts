// The scenario as the engine runs it: parsed, checked, durations in ms. `parseScenario` builds it
// from a YAML file; a program can also write one by hand.

/**
 * A latency distribution, ms (YAML: `100ms`, `{ uniform: [100ms, 500ms] }`, `{ logNormal: { p50: 80ms, p99: 2s } }`).
 *
 * @example
 * ```ts
 * const latency: Latency = { kind: 'logNormal', p50: 80, p99: 2000 };
 * ```
 */
export type Latency =
  | { readonly kind: 'fixed'; readonly ms: number }
  /** Uniform in [min, max]; whole ms when both ends are whole. */
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  /** Log-normal with the given median and 99th percentile. */
  | { readonly kind: 'logNormal'; readonly p50: number; readonly p99: number };

/**
 * How the backend answers during a phase.
 *
 * @example
 * ```ts
 * const backend: Backend = { errorRatio: 0.4, hangRatio: 0, latency: { kind: 'uniform', min: 100, max: 500 }, errorLatency: { kind: 'fixed', ms: 0 } };
 * ```
 */
export interface Backend {
  /** Share of calls that fail, [0, 1]. */
  readonly errorRatio: number;
  /** Share of calls that never answer (until a time limiter cancels them), [0, 1]. */
  readonly hangRatio: number;
  /** How long a successful call takes. */
  readonly latency: Latency;
  /** How long a failing call takes before it fails. */
  readonly errorLatency: Latency;
  /**
   * Share of the calls that succeed which take `slowLatency` instead of `latency`, [0, 1] (undefined:
   * none): a tail of its own — a garbage-collection pause, a cache miss, a slow replica — on top of
   * the usual latencies, the tail a hedge is for.
   */
  readonly slowRatio?: number;
  /** With `slowRatio`: how long a slow call takes. */
  readonly slowLatency?: Latency;
  /**
   * Calls served at once (undefined or Infinity: no limit). Calls beyond it wait at the backend,
   * first come first served, so a call's latency is its wait plus its own `latency`.
   */
  readonly capacity?: number;
  /**
   * With `capacity`: calls that may wait for a free server (undefined or Infinity: no limit). A
   * call that finds `capacity` calls in service and `queueLimit` waiting fails at once with a
   * {@link SimulatedOverloadError} (an HTTP 503).
   */
  readonly queueLimit?: number;
}

/**
 * One stretch of traffic.
 *
 * @example
 * ```ts
 * const burst: Phase = { name: 'burst', durationMs: 5000, arrivals: 'poisson', rate: 15, users: 0, thinkTimeMs: 0, maxRequests: Infinity, backend };
 * ```
 */
export interface Phase {
  readonly name: string;
  readonly durationMs: number;
  /**
   * `constant`: one request every 1000 / rate ms; `poisson`: exponential gaps of mean 1000 / rate;
   * `closed`: `users` users, each sending its next request when the last one ended (plus `thinkTimeMs`);
   * `none`: a pause, no request.
   */
  readonly arrivals: 'constant' | 'poisson' | 'closed' | 'none';
  /** Requests per second (constant, poisson). */
  readonly rate: number;
  /** Concurrent users (closed). */
  readonly users: number;
  readonly thinkTimeMs: number;
  /** At most this many requests arrive in the phase (Infinity: no limit). */
  readonly maxRequests: number;
  readonly backend: Backend;
}

/**
 * One recorded call: when it arrived (ms from the first), how long it took, how it ended.
 *
 * @example
 * ```ts
 * const entry: TraceEntry = { atMs: 1500, latencyMs: 2000, outcome: 'hang' };
 * ```
 */
export interface TraceEntry {
  readonly atMs: number;
  readonly latencyMs: number;
  readonly outcome: 'ok' | 'error' | 'hang';
}

/**
 * The traffic: phases, or a recorded trace replayed as the backend's behaviour.
 *
 * @example
 * ```ts
 * const traffic: Traffic = { kind: 'trace', name: 'access.jsonl', entries: parseTrace('access.jsonl', text) };
 * ```
 */
export type Traffic =
  | { readonly kind: 'phases'; readonly phases: readonly Phase[] }
  | { readonly kind: 'trace'; readonly name: string; readonly entries: readonly TraceEntry[] };

/**
 * One layer of a pipeline, outermost first (as `decorate()` nests them).
 *
 * @example
 * ```ts
 * const layer: LayerSpec = { kind: 'timeLimiter', options: { timeoutDuration: '600ms' } };
 * ```
 */
export interface LayerSpec {
  readonly kind: 'retry' | 'circuitBreaker' | 'timeLimiter' | 'rateLimiter' | 'bulkhead' | 'adaptiveLimiter' | 'throttle' | 'hedge' | 'chaos';
  /** The component's options as written (durations may be strings); `clock` and `random` are the engine's. */
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * A pipeline to compare: Breakwater options, or a Spring `resilience4j:` block and an instance name.
 *
 * @example
 * ```ts
 * const spec: PipelineSpec = { name: 'retry=3', kind: 'layers', layers: [{ kind: 'retry', options: { maxAttempts: 3 } }, { kind: 'circuitBreaker', options: {} }] };
 * ```
 */
export type PipelineSpec =
  | {
      readonly name: string;
      readonly kind: 'layers';
      readonly layers: readonly LayerSpec[];
      readonly settings?: Readonly<Record<string, string | number | boolean>>;
    }
  | { readonly name: string; readonly kind: 'spring'; readonly resilience4j: unknown; readonly instance: string };

/**
 * A whole scenario, as `parseScenario` returns it (or written by hand).
 *
 * @example
 * ```ts
 * const scenario: Scenario = { ...parseScenarioFile('scenario.yml'), seed: 7 };
 * const report = simulate(scenario);
 * ```
 */
export interface Scenario {
  readonly name: string;
  readonly file?: string;
  readonly seed: number;
  /** Width of the time series' buckets, ms (undefined: chosen from the duration). */
  readonly bucketMs?: number;
  readonly pipelines: readonly PipelineSpec[];
  readonly traffic: Traffic;
}
