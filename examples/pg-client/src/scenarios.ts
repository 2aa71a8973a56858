import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  parseScenarioFile,
  runConfiguration,
  type BuiltLayer,
  type ConfigurationResult,
  type Latency,
  type Phase,
  type RunObserver,
  type Scenario,
} from '@breakwater/simulator';

/** The documents' experiments as simulator scenarios: examples/scenarios/<name>.yml (one engine for the demo and `breakwater simulate`). */
export type ExperimentName = 'retry-vs-breaker' | 'slow-vs-timeout' | 'count-vs-time';

const SCENARIOS = resolve(dirname(fileURLToPath(import.meta.url)), '../../scenarios');
const cache = new Map<ExperimentName, Scenario>();

/** The scenario file of an experiment, parsed once. */
export function experimentScenario(name: ExperimentName): Scenario {
  let scenario = cache.get(name);
  if (scenario === undefined) cache.set(name, (scenario = parseScenarioFile(resolve(SCENARIOS, `${name}.yml`))));
  return scenario;
}

/** The phases of an experiment's traffic. */
export function experimentPhases(name: ExperimentName): readonly Phase[] {
  const { traffic } = experimentScenario(name);
  if (traffic.kind !== 'phases') throw new Error(`${name}.yml: expected phases`);
  return traffic.phases;
}

/** A latency distribution in words, as the report prints it. */
export function describeLatency(latency: Latency): string {
  if (latency.kind === 'fixed') return `${latency.ms} ms`;
  if (latency.kind === 'uniform') return `${latency.min}–${latency.max} ms`;
  return `log-normal, median ${latency.p50} ms, p99 ${latency.p99} ms`;
}

export interface RunOptions {
  readonly seed: number;
  /** Hooks on the run, given the pipeline's components (its breaker, retry, time limiter). */
  readonly observe?: (layers: readonly BuiltLayer[]) => RunObserver;
  /** At most this many requests in each phase (default: the scenario's). */
  readonly requests?: number;
}

/** Runs one pipeline of an experiment's scenario with another seed (and, optionally, fewer requests). */
export function runExperimentPipeline(name: ExperimentName, pipeline: string, options: RunOptions): ConfigurationResult {
  const scenario = experimentScenario(name);
  const spec = scenario.pipelines.find((p) => p.name === pipeline);
  if (spec === undefined) throw new Error(`${name}.yml has no pipeline '${pipeline}'`);
  let traffic = scenario.traffic;
  if (options.requests !== undefined && traffic.kind === 'phases') {
    const requests = options.requests;
    traffic = { kind: 'phases', phases: traffic.phases.map((p) => ({ ...p, maxRequests: requests })) };
  }
  const observe = options.observe;
  return runConfiguration({ ...scenario, seed: options.seed, traffic }, spec, observe === undefined ? {} : { observer: (_, layers) => observe(layers) });
}

/** The breaker of a pipeline's components. */
export function breakerIn(layers: readonly BuiltLayer[]) {
  const layer = layers.find((l) => l.kind === 'circuitBreaker');
  if (layer?.kind !== 'circuitBreaker') throw new Error('the pipeline has no circuit breaker');
  return layer.breaker;
}

/** A breaker's state at `atMs`, from its transitions (CLOSED before the first). */
export function stateAt(result: ConfigurationResult, atMs: number): string {
  let state = 'CLOSED';
  for (const t of result.transitions) if (t.atMs <= atMs) state = t.to;
  return state;
}
