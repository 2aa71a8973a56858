// The shapes of one bench run's results, and of the targets judged on them: one module that the
// measuring (memory.ts, scrape.ts, redis.ts, simulator.ts) and the reporting (report.ts,
// redis-report.ts, targets.ts) both import, so neither imports the other's types.
import type { Side } from './harness.js';

/** A case's measured figure. */
export interface CaseResult {
  readonly name: string;
  readonly side: Side;
  /** Median ns per operation. */
  readonly ns: number;
  readonly informational?: boolean | undefined;
}

/** A row's measured figures: its floor and every case. */
export interface RowResult {
  readonly id: string;
  readonly title: string;
  readonly floor: CaseResult;
  readonly cases: readonly CaseResult[];
}

/** A heap figure of row 9. */
export interface MemoryResult {
  readonly id: string;
  readonly name: string;
  readonly bytes: number;
}

/** Row 10: one Prometheus scrape of many breakers. */
export interface ScrapeResult {
  readonly id: string;
  readonly name: string;
  readonly breakers: number;
  readonly ms: number;
  readonly allocatedBytes: number;
  readonly textBytes: number;
  /** `registry.getMetricsAsJSON()`: the same values, collected, without prom-client's text formatting. */
  readonly collectMs: number;
  readonly collectBytes: number;
  /** Sample lines of the scrape (every line but comments). */
  readonly series: number;
}

/** Everything one run measured. */
export interface Results {
  readonly rows: readonly RowResult[];
  readonly memory: readonly MemoryResult[];
  readonly scrape?: readonly ScrapeResult[];
  /** Row 13: the simulator's engine (see simulator.ts). */
  readonly simulator?: readonly SimulatorResult[];
  /** Row 11: RedisRateLimiter against rate-limiter-flexible's RateLimiterRedis (see redis.ts). */
  readonly redis?: readonly RedisRowResult[];
  /** Row 15: the adaptive limiter's targets on examples/scenarios/adaptive.yml (see adaptive-scenario.ts). */
  readonly adaptiveScenario?: AdaptiveScenarioResult | undefined;
}

/** A target's verdict: whether it holds, and the figures it was judged on, in words. */
export interface Verdict {
  readonly target: string;
  readonly pass: boolean;
  readonly detail: string;
  /** Why the target is missed, when it is and the reason is known. */
  readonly note?: string | undefined;
}

/** A target: judged on one run's results. */
export interface Target {
  readonly description: string;
  judge(results: Results): Verdict;
}

/** Row 13: the simulator's engine — simulated traffic through Retry → CircuitBreaker → TimeLimiter. */
export interface SimulatorResult {
  readonly id: string;
  readonly title: string;
  /** Simulated time, ms, and the requests in it. */
  readonly simulatedMs: number;
  readonly requests: number;
  /** Breaker calls (every attempt), for scale. */
  readonly breakerCalls: number;
  /** Wall time of the run, ms (the median of `runs`). */
  readonly ms: number;
  readonly runs: number;
}

/** Row 11: a RedisRateLimiter against rate-limiter-flexible's RateLimiterRedis on the same redis-server. */
export interface RedisRowResult {
  /** `11a` (latency: one acquire at a time) or `11b` (throughput: 100 in flight). */
  readonly id: string;
  readonly title: string;
  /** `µs/op` (lower is better) or `ops/s` (higher is better). */
  readonly unit: 'µs/op' | 'ops/s';
  readonly breakwater: number;
  readonly peer: number;
  readonly peerName: string;
  /** Where the server was (`REDIS_URL` or 127.0.0.1:6379). */
  readonly server: string;
}

/** One pipeline of row 15, per phase of the scenario. */
export interface PipelineFigures {
  readonly name: string;
  readonly phases: readonly {
    /** Successful requests per second over what the backend can serve in that phase. */
    readonly goodputOfCapacity: number;
    /** Latency of the successful requests, ms. */
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly rejected: number;
  }[];
}

/** Row 15: the adaptive limiter against static bulkheads on examples/scenarios/adaptive.yml. */
export interface AdaptiveScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly pipelines: readonly PipelineFigures[];
  /** Simulated seconds from the capacity's drop until the adaptive limit was within 1.5 × the new capacity (Infinity: never). */
  readonly secondsToFollowDrop: number;
  /** Wall time of the run, ms. */
  readonly ms: number;
}
