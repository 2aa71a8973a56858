import { VirtualClock } from '@breakwater/core';
import { freezeCounts } from './counts.js';
import { runEngine } from './engine.js';
import type { RunObserver } from './engine-types.js';
import { breakerOf, buildPipeline, type BuiltLayer } from './pipeline.js';
import { seededRandom } from './random.js';
import { rank, standings } from './ranking.js';
import type { ConfigurationResult, SeedRun, SimulationReport } from './report.js';
import type { PipelineSpec, Scenario, Traffic } from './scenario.js';
import { checkLimits } from './limits.js';
import { defaultBucketMs, maxBuckets } from './series.js';

/**
 * Options of {@link simulate} and {@link runConfiguration}.
 *
 * @example
 * ```ts
 * simulate(scenario, { progress: (i, of, ms, total) => process.stderr.write(`\r${i + 1}/${of} ${ms}/${total} ms`) });
 * ```
 */
export interface SimulateOptions {
  /** Hooks into each run: the pipeline's components once built, each request's end, each state change. */
  readonly observer?: (pipeline: PipelineSpec, layers: readonly BuiltLayer[]) => RunObserver | undefined;
  /** Called now and then with the configuration running (0-based), their number, and the simulated time reached. */
  readonly progress?: (configuration: number, of: number, simulatedMs: number, totalMs: number) => void;
  /**
   * How many seeds each configuration runs with (default 1, at most {@link MAX_SEEDS}): the
   * scenario's seed, then the next ones. The report then has each seed's totals (`runs`), ranks by
   * their means and says which configurations are a tie (see `Standing.tie`).
   */
  readonly seeds?: number;
}

/**
 * The most seeds {@link SimulateOptions.seeds} may ask for.
 *
 * @example
 * ```ts
 * const report = simulate(scenario, { seeds: Math.min(5, MAX_SEEDS) });
 * ```
 */
export const MAX_SEEDS = 100;

/** The traffic's phases as the report lists them (a trace is one phase named after its file). */
export function phasesOf(traffic: Traffic): { name: string; startMs: number; endMs: number }[] {
  if (traffic.kind === 'trace') return [{ name: traffic.name, startMs: 0, endMs: (traffic.entries.at(-1)?.atMs ?? 0) + 1 }];
  let t = 0;
  return traffic.phases.map((p) => ({ name: p.name, startMs: t, endMs: (t += p.durationMs) }));
}

const ARRIVAL_STREAM = 0x5bd1e995;

/**
 * Runs one pipeline through the scenario's traffic on a fresh VirtualClock. The seed draws the
 * arrivals (the same for every pipeline) and the backend's answers.
 *
 * @example
 * ```ts
 * const result = runConfiguration(scenario, scenario.pipelines[0]!);
 * console.log(result.totals.breakerCallsPerRequest, result.transitions);
 * ```
 */
export function runConfiguration(
  scenario: Scenario,
  pipeline: PipelineSpec,
  options: SimulateOptions & { readonly index?: number; readonly of?: number } = {},
): ConfigurationResult {
  const phases = phasesOf(scenario.traffic);
  const totalMs = phases.at(-1)?.endMs ?? 0;
  const clock = new VirtualClock();
  const random = seededRandom(scenario.seed);
  const layers = buildPipeline(pipeline, clock, random);
  const settings = settingsOf(pipeline, layers); // before the run: an adaptive limit's first value
  const progress = options.progress;
  checkLimits(scenario);
  const bucketMs = scenario.bucketMs ?? defaultBucketMs(totalMs);
  const run = runEngine(scenario.traffic, layers, {
    clock,
    random,
    arrivalRandom: seededRandom(scenario.seed ^ ARRIVAL_STREAM),
    bucketMs,
    maxBuckets: maxBuckets(totalMs, bucketMs),
    observer: options.observer?.(pipeline, layers),
    progress: progress && ((ms) => progress(options.index ?? 0, options.of ?? 1, ms, totalMs)),
  });
  const breaker = breakerOf(layers);
  const opened = run.transitions.findIndex((t) => t.to === 'OPEN');
  const openedAt = opened < 0 ? null : run.transitions[opened]!.atMs;
  const closedAt = opened < 0 ? undefined : run.transitions.slice(opened).find((t) => t.to === 'CLOSED')?.atMs;
  return {
    name: pipeline.name,
    settings,
    thresholds: {
      failureRateThreshold: breaker?.config.failureRateThreshold ?? 100,
      slowCallRateThreshold: breaker?.config.slowCallRateThreshold ?? 100,
    },
    totals: freezeCounts(run.tallies),
    phases: run.tallies.map((t, i) => ({ name: phases[i]!.name, ...freezeCounts([t]) })),
    transitions: run.transitions,
    timeToOpenMs: openedAt,
    timeToRecoverMs: openedAt === null || closedAt === undefined ? null : closedAt - openedAt,
    series: run.series,
  };
}

/** What tells a configuration apart: a sweep's values, else the main options of its components. */
function settingsOf(pipeline: PipelineSpec, layers: readonly BuiltLayer[]): Record<string, string | number | boolean> {
  if (pipeline.kind === 'layers' && pipeline.settings !== undefined) return { ...pipeline.settings };
  const settings: Record<string, string | number | boolean> = {};
  for (const layer of layers) {
    if (layer.kind === 'retry') settings['maxAttempts'] = layer.retry.config.maxAttempts;
    else if (layer.kind === 'timeLimiter') settings['timeoutDuration'] = layer.timeLimiter.config.timeoutDuration;
    else if (layer.kind === 'rateLimiter') {
      const c = layer.rateLimiter.config;
      Object.assign(settings, { limitForPeriod: c.limitForPeriod, limitRefreshPeriod: c.limitRefreshPeriod, 'rateLimiter.timeoutDuration': c.timeoutDuration });
    } else if (layer.kind === 'bulkhead') {
      const c = layer.bulkhead.config;
      Object.assign(settings, { maxConcurrentCalls: c.maxConcurrentCalls, maxWaitDuration: c.maxWaitDuration });
    } else if (layer.kind === 'adaptiveLimiter') {
      const c = layer.limiter.config;
      Object.assign(settings, {
        algorithm: c.algorithm.name,
        initialLimit: c.algorithm.limit,
        'adaptiveLimiter.maxWaitDuration': c.maxWaitDuration,
        queue: c.queue,
      });
    } else if (layer.kind === 'throttle') {
      const c = layer.throttle.config;
      Object.assign(settings, { k: c.k, window: c.window, maxRejectRatio: c.maxRejectRatio });
    } else if (layer.kind === 'hedge') {
      const { maxHedgedAttempts, delay } = layer.hedge.config;
      Object.assign(settings, { maxHedgedAttempts, 'hedge.delay': delay.kind === 'fixed' ? delay.ms : `p${delay.percentile * 100}` });
    } else if (layer.kind === 'chaos') {
      const c = layer.chaos;
      const what = c.strategy === 'latency' ? `latency ${c.config.latency as number}ms` : c.strategy;
      const chaos = c.config.enabled === true ? `${what} ${(c.config.rate as number) * 100}%` : `${what} (disabled)`;
      settings['chaos'] = settings['chaos'] === undefined ? chaos : `${settings['chaos']}, ${chaos}`;
    } else {
      const c = layer.breaker.config;
      Object.assign(settings, {
        slidingWindowType: c.slidingWindowType,
        slidingWindowSize: c.slidingWindowSize,
        minimumNumberOfCalls: c.minimumNumberOfCalls,
        failureRateThreshold: c.failureRateThreshold,
        slowCallRateThreshold: c.slowCallRateThreshold,
        slowCallDurationThreshold: c.slowCallDurationThreshold,
        waitDurationInOpenState: c.waitDurationInOpenState,
      });
    }
  }
  return settings;
}

/**
 * Runs every pipeline of the scenario and ranks them (see `rank`): the report every output is
 * rendered from. Deterministic: the same scenario and seed give the same report.
 *
 * @example
 * ```ts
 * const scenario = parseScenarioFile('examples/scenarios/retry-vs-breaker.yml');
 * const report = simulate(scenario);
 * console.log(renderTable(report));
 * ```
 */
export function simulate(scenario: Scenario, options: SimulateOptions = {}): SimulationReport {
  const count = options.seeds ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEEDS)
    throw new RangeError(`simulate: seeds must be a whole number from 1 to ${MAX_SEEDS}, got ${count}`);
  const seeds = Array.from({ length: count }, (_, k) => (scenario.seed + k) >>> 0);
  const phases = phasesOf(scenario.traffic);
  const of = scenario.pipelines.length;
  const configurations = scenario.pipelines.map((p, index): ConfigurationResult => {
    const first = runConfiguration(scenario, p, { ...options, index, of });
    if (count === 1) return first;
    const runs: SeedRun[] = [seedRun(seeds[0]!, first)];
    for (const seed of seeds.slice(1)) runs.push(seedRun(seed, runConfiguration({ ...scenario, seed }, p, { ...options, index, of })));
    return { ...first, runs };
  });
  const ranking = configurations.length > 1 ? rank(configurations) : [];
  return {
    scenario: {
      name: scenario.name,
      ...(scenario.file === undefined ? {} : { file: scenario.file }),
      seed: scenario.seed,
      ...(count > 1 ? { seeds } : {}),
      durationMs: phases.at(-1)?.endMs ?? 0,
      phases,
    },
    configurations,
    ranking,
    ...(ranking.length > 0 ? { standings: standings(configurations, ranking) } : {}),
  };
}

const seedRun = (seed: number, c: ConfigurationResult): SeedRun => ({
  seed,
  totals: c.totals,
  timeToOpenMs: c.timeToOpenMs,
  timeToRecoverMs: c.timeToRecoverMs,
});
