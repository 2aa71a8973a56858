import { VirtualClock } from '@breakwater/core';
import { closest } from '@breakwater/core/internal';
import { LAYER_OPTIONS } from './parse-pipelines.js';
import { buildLayer } from './pipeline.js';
import type { LayerSpec, PipelineSpec, Scenario } from './scenario.js';

/**
 * A `--sweep` the command line cannot use: the CLI prints it and exits with code 2.
 *
 * @example
 * ```ts
 * try { parseSweep('slidingWindowSiz=10'); } catch (e) { if (e instanceof SweepError) console.error(e.message); }
 * ```
 */
export class SweepError extends Error {
  override name = 'SweepError';
}

/**
 * One `--sweep key=v1,v2,…`: an option of a layer kind (or of every kind that has it) and its values.
 *
 * @example
 * ```ts
 * const axis: SweepAxis = { key: 'slidingWindowSize', kind: 'circuitBreaker', values: [10, 20, 50] };
 * ```
 */
export interface SweepAxis {
  readonly key: string;
  /** Set when written `circuitBreaker.slidingWindowSize=…`; else every layer kind with that option. */
  readonly kind: LayerSpec['kind'] | undefined;
  readonly values: readonly (string | number | boolean)[];
}

const KINDS = Object.keys(LAYER_OPTIONS) as LayerSpec['kind'][];
const ALL_OPTIONS = [...new Set(KINDS.flatMap((k) => LAYER_OPTIONS[k]))];

const sweepValue = (raw: string): string | number | boolean =>
  raw === 'true' ? true : raw === 'false' ? false : raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;

/**
 * Reads one `--sweep` argument: `slidingWindowSize=10,20,50`, `waitDurationInOpenState=5s,30s`,
 * or with the layer kind, `timeLimiter.timeoutDuration=600ms,1s`. Numbers and `true`/`false` are
 * read as such; durations stay strings (the component reads them).
 *
 * @example
 * ```ts
 * parseSweep('slidingWindowSize=10,20,50'); // { key: 'slidingWindowSize', kind: undefined, values: [10, 20, 50] }
 * ```
 */
export function parseSweep(arg: string): SweepAxis {
  const eq = arg.indexOf('=');
  if (eq <= 0 || eq === arg.length - 1) throw new SweepError(`--sweep needs option=value1,value2,…, got '${arg}'`);
  const name = arg.slice(0, eq).trim();
  const dot = name.indexOf('.');
  const kindName = dot < 0 ? undefined : name.slice(0, dot);
  const key = dot < 0 ? name : name.slice(dot + 1);
  if (kindName !== undefined && !KINDS.includes(kindName as LayerSpec['kind'])) {
    const guess = closest(kindName, KINDS);
    throw new SweepError(`--sweep ${name}: unknown layer '${kindName}'${guess ? ` (did you mean '${guess}'?)` : ''}; layers: ${KINDS.join(', ')}`);
  }
  const kind = kindName as LayerSpec['kind'] | undefined;
  const known = kind === undefined ? ALL_OPTIONS : LAYER_OPTIONS[kind];
  if (!known.includes(key)) {
    const guess = closest(key, known);
    throw new SweepError(`--sweep ${name}: unknown option '${key}'${guess ? ` (did you mean '${guess}'?)` : ''}`);
  }
  const values = arg
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim());
  if (values.some((v) => v === '')) throw new SweepError(`--sweep ${name}: an empty value in '${arg.slice(eq + 1)}'`);
  return { key, kind, values: values.map(sweepValue) };
}

/** How an axis is named in a configuration's name and settings: `key`, or `kind.key` when written with its layer kind. */
const axisName = (axis: SweepAxis): string => (axis.kind === undefined ? axis.key : `${axis.kind}.${axis.key}`);

/** Every combination of the axes' values, in order (the last axis varies fastest). */
export function combinations(axes: readonly SweepAxis[]): Record<string, string | number | boolean>[] {
  let out: Record<string, string | number | boolean>[] = [{}];
  for (const axis of axes) out = out.flatMap((c) => axis.values.map((v) => ({ ...c, [axisName(axis)]: v })));
  return out;
}

function sweptLayers(pipeline: PipelineSpec & { kind: 'layers' }, axes: readonly SweepAxis[], values: Record<string, string | number | boolean>): LayerSpec[] {
  return pipeline.layers.map((layer) => {
    const options = { ...layer.options };
    for (const axis of axes) {
      if ((axis.kind === undefined || axis.kind === layer.kind) && LAYER_OPTIONS[layer.kind].includes(axis.key)) options[axis.key] = values[axisName(axis)];
    }
    return { kind: layer.kind, options };
  });
}

/**
 * The scenario with one pipeline per combination of the sweep's values for each of its pipelines,
 * named `key=value key=value` (prefixed by the pipeline's name when there are several). Every
 * combination's components are built once here, so a bad value is refused before anything runs.
 *
 * @example
 * ```ts
 * const swept = applySweep(scenario, [parseSweep('slidingWindowSize=10,20,50'), parseSweep('waitDurationInOpenState=5s,30s')]);
 * swept.pipelines.length; // 6 for a scenario with one pipeline
 * ```
 */
export function applySweep(scenario: Scenario, axes: readonly SweepAxis[]): Scenario {
  if (axes.length === 0) return scenario;
  axes.forEach((axis, i) => {
    const twice = axes.slice(0, i).some((a) => a.key === axis.key && (a.kind === undefined || axis.kind === undefined || a.kind === axis.kind));
    if (twice) throw new SweepError(`--sweep ${axisName(axis)} is given twice: give its values once, separated by commas`);
  });
  const pipelines: PipelineSpec[] = [];
  for (const pipeline of scenario.pipelines) {
    if (pipeline.kind !== 'layers') throw new SweepError(`--sweep applies to pipelines written as options; '${pipeline.name}' is a Spring block`);
    for (const axis of axes) {
      const taken = pipeline.layers.some((l) => (axis.kind === undefined || axis.kind === l.kind) && LAYER_OPTIONS[l.kind].includes(axis.key));
      if (!taken) throw new SweepError(`--sweep ${axisName(axis)}: pipeline '${pipeline.name}' has no layer with that option`);
      const kinds = [...new Set(pipeline.layers.filter((l) => LAYER_OPTIONS[l.kind].includes(axis.key)).map((l) => l.kind))];
      if (axis.kind === undefined && kinds.length > 1) {
        const which = kinds.map((k) => `${k}.${axis.key}=…`).join(' or ');
        throw new SweepError(`--sweep ${axis.key}: pipeline '${pipeline.name}' has it in ${kinds.join(' and ')}: say which, ${which}`);
      }
    }
    for (const values of combinations(axes)) {
      const label = Object.entries(values)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      const layers = sweptLayers(pipeline, axes, values);
      for (const layer of layers) {
        try {
          buildLayer(layer, 'sweep', new VirtualClock(), Math.random);
        } catch (error) {
          throw new SweepError(`--sweep ${label}: ${(error as Error).message}`);
        }
      }
      const name = scenario.pipelines.length > 1 ? `${pipeline.name} ${label}` : label;
      pipelines.push({ name, kind: 'layers', layers, settings: values });
    }
  }
  return { ...scenario, pipelines };
}
