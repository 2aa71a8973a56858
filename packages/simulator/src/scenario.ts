// The scenario as the engine runs it: parsed, checked, durations in ms. `parseScenario` builds it
// from a YAML file; a program can also write one by hand.

/** A latency distribution, ms. */
export type Latency =
  | { readonly kind: 'fixed'; readonly ms: number }
  /** Uniform in [min, max]; whole ms when both ends are whole. */
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  /** Log-normal with the given median and 99th percentile. */
  | { readonly kind: 'logNormal'; readonly p50: number; readonly p99: number };

/** How the backend answers during a phase. */
export interface Backend {
  /** Share of calls that fail, [0, 1]. */
  readonly errorRatio: number;
  /** Share of calls that never answer (until a time limiter cancels them), [0, 1]. */
  readonly hangRatio: number;
  /** How long a successful call takes. */
  readonly latency: Latency;
  /** How long a failing call takes before it fails. */
  readonly errorLatency: Latency;
}

/** One stretch of traffic. */
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

/** One recorded call: when it arrived (ms from the first), how long it took, how it ended. */
export interface TraceEntry {
  readonly atMs: number;
  readonly latencyMs: number;
  readonly outcome: 'ok' | 'error' | 'hang';
}

/** The traffic: phases, or a recorded trace replayed as the backend's behaviour. */
export type Traffic =
  | { readonly kind: 'phases'; readonly phases: readonly Phase[] }
  | { readonly kind: 'trace'; readonly name: string; readonly entries: readonly TraceEntry[] };

/** One layer of a pipeline, outermost first (as `decorate()` nests them). */
export interface LayerSpec {
  readonly kind: 'retry' | 'circuitBreaker' | 'timeLimiter';
  /** The component's options as written (durations may be strings); `clock` and `random` are the engine's. */
  readonly options: Readonly<Record<string, unknown>>;
}

/** A pipeline to compare: Breakwater options, or a Spring `resilience4j:` block and an instance name. */
export type PipelineSpec =
  | { readonly name: string; readonly kind: 'layers'; readonly layers: readonly LayerSpec[]; readonly settings?: Readonly<Record<string, string | number | boolean>> }
  | { readonly name: string; readonly kind: 'spring'; readonly resilience4j: unknown; readonly instance: string };

/** A whole scenario. */
export interface Scenario {
  readonly name: string;
  readonly file?: string;
  readonly seed: number;
  /** Width of the time series' buckets, ms (undefined: chosen from the duration). */
  readonly bucketMs?: number;
  readonly pipelines: readonly PipelineSpec[];
  readonly traffic: Traffic;
}
