import { basename, dirname, resolve } from 'node:path';
import { parsePipelines } from './parse-pipelines.js';
import { readRegularFile } from './read-file.js';
import { parseTraffic } from './parse-traffic.js';
import type { Scenario } from './scenario.js';
import { LIMITS } from './limits.js';
import { phasesOf } from './simulate.js';
import { duration, number, text } from './values.js';
import { YamlSource } from './yaml-source.js';

const TOP_KEYS = ['name', 'seed', 'bucket', 'pipelines', 'traffic'] as const;

/**
 * Where {@link parseScenario} reads a trace file named by the scenario (default: the file system, relative to the scenario's folder).
 *
 * @example
 * ```ts
 * const scenario = parseScenario(yamlText, 'inline.yml', (path) => ({ file: path, text: traces[path]! }));
 * ```
 */
export type TraceReader = (path: string) => { file: string; text: string };

/**
 * Parses and checks a scenario (YAML text). Bad input — an unknown key (with a did-you-mean), a
 * bad unit, a rate of 0, a tag, a malformed trace line — throws a {@link ScenarioError} naming
 * the file, line and key, before anything runs.
 *
 * @example
 * ```ts
 * const scenario = parseScenario(`
 * pipelines:
 *   default:
 *     - circuitBreaker: { slidingWindowSize: 20, minimumNumberOfCalls: 10 }
 * traffic:
 *   phases:
 *     - { duration: 1m, rate: 50, errorRatio: 0.3, latency: 80ms }
 * `, 'inline.yml');
 * ```
 */
export function parseScenario(yamlText: string, file = 'scenario.yml', readTrace?: TraceReader): Scenario {
  const src = new YamlSource(file, yamlText);
  const top = src.entries(src.doc.contents, '', TOP_KEYS, 'a scenario');
  const pipelines = top.get('pipelines') ?? src.fail(src.doc.contents, '', "needs 'pipelines' (the configurations to compare)");
  const traffic = top.get('traffic') ?? src.fail(src.doc.contents, '', "needs 'traffic' (phases or a trace)");
  const reader: TraceReader =
    readTrace ??
    ((path) => {
      const full = resolve(dirname(file), path);
      return { file: full, text: readRegularFile(full, LIMITS.maxTraceBytes) };
    });
  const bucket = top.get('bucket');
  const scenario: Scenario = {
    name: top.has('name') ? text(src, top.get('name')!) : basename(file).replace(/\.ya?ml$/i, ''),
    file,
    seed: top.has('seed') ? number(src, top.get('seed')!, { min: 0, max: 2 ** 32 - 1, integer: true }) : 1,
    ...(bucket === undefined ? {} : { bucketMs: duration(src, bucket, { positive: true }) }),
    pipelines: parsePipelines(src, pipelines),
    traffic: parseTraffic(src, traffic, reader),
  };
  const totalMs = phasesOf(scenario.traffic).at(-1)?.endMs ?? 0;
  if (scenario.bucketMs !== undefined && totalMs / scenario.bucketMs > LIMITS.maxPoints) {
    src.fail(
      bucket!.value,
      'bucket',
      `gives ${Math.ceil(totalMs / scenario.bucketMs)} points for ${totalMs} ms of traffic; at most ${LIMITS.maxPoints} (a wider bucket)`,
    );
  }
  return scenario;
}

/**
 * Reads and parses a scenario file (see {@link parseScenario}); a trace it names is read relative to
 * it. Both must be regular files (a FIFO, a device or a folder is refused, as is a file over
 * `LIMITS.maxScenarioBytes` or `LIMITS.maxTraceBytes`: a `FileReadError` for the scenario, a
 * {@link ScenarioError} at the `trace:` key for the trace).
 *
 * @example
 * ```ts
 * const report = simulate(parseScenarioFile('examples/scenarios/count-vs-time.yml'));
 * ```
 */
export function parseScenarioFile(path: string): Scenario {
  return parseScenario(readRegularFile(path, LIMITS.maxScenarioBytes), path);
}
