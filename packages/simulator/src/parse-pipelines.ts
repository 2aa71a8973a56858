import { ADAPTIVE_LIMITER_OPTIONS, ADAPTIVE_THROTTLE_OPTIONS } from '@breakwater/adaptive';
import { BULKHEAD_OPTIONS } from '@breakwater/bulkhead';
import { CHAOS_OPTIONS } from '@breakwater/chaos';
import { CIRCUIT_BREAKER_OPTIONS } from '@breakwater/circuit-breaker';
import { VirtualClock } from '@breakwater/core';
import { RATE_LIMITER_OPTIONS } from '@breakwater/rate-limiter';
import { HEDGE_OPTIONS, RETRY_OPTIONS } from '@breakwater/retry';
import { TIME_LIMITER_OPTIONS } from '@breakwater/time-limiter';
import { isMap, isScalar, isSeq, type Node, type Pair } from 'yaml';
import { buildLayer, buildPipeline, relaxed } from './pipeline.js';
import type { LayerSpec, PipelineSpec } from './scenario.js';
import { text } from './values.js';
import type { Entry, YamlSource } from './yaml-source.js';

/** Options that take code (functions, error classes, a clock): a scenario file cannot hold them. */
const CODE_OPTIONS = new Set([
  'waitIntervalFunctionInOpenState',
  'recordExceptions',
  'recordException',
  'ignoreExceptions',
  'ignoreException',
  'recordResult',
  'clock',
  'intervalFunction',
  'intervalBiFunction',
  'retryExceptions',
  'retryOnException',
  'retryOnResult',
  'consumeResultBeforeRetryAttempt',
  'budget',
  'random',
  'drainPermissionsOnResult',
  'isDrop',
  'shouldHandle',
  'onHedging',
]);

/** Options a kind of layer cannot simulate, and why. */
const UNSIMULATED: Readonly<Partial<Record<LayerSpec['kind'], Readonly<Record<string, string>>>>> = {
  adaptiveLimiter: { partitions: "is not simulated (the traffic's requests carry no partition)" },
  chaos: {
    behavior:
      'is code (a function), which a scenario file cannot hold; in a simulation a behaviour matters only by what it does to the call: ' +
      'write it as a latency (`latency: 200ms`: a slow side effect) or a fault (`fault: …`: one that throws)',
  },
};

/** Every option of a `chaos:` layer: the strategies' own (one of them names the strategy) and the options they share. */
const CHAOS_KEYS = [...new Set([...CHAOS_OPTIONS.fault, ...CHAOS_OPTIONS.latency, ...CHAOS_OPTIONS.outcome, ...CHAOS_OPTIONS.behavior])];

/** Every option of each kind of layer, as its package lists them. */
const ALL_OPTIONS: Readonly<Record<LayerSpec['kind'], readonly string[]>> = {
  retry: RETRY_OPTIONS,
  circuitBreaker: CIRCUIT_BREAKER_OPTIONS,
  timeLimiter: TIME_LIMITER_OPTIONS,
  rateLimiter: RATE_LIMITER_OPTIONS,
  bulkhead: BULKHEAD_OPTIONS,
  adaptiveLimiter: ADAPTIVE_LIMITER_OPTIONS,
  throttle: ADAPTIVE_THROTTLE_OPTIONS,
  hedge: HEDGE_OPTIONS,
  chaos: CHAOS_KEYS,
};

/** The options a scenario may give each kind of layer: the package's own option list, without those that take code. */
const scenarioOptions = (kind: LayerSpec['kind']) => ALL_OPTIONS[kind].filter((k) => !CODE_OPTIONS.has(k) && UNSIMULATED[kind]?.[k] === undefined);
export const LAYER_OPTIONS: Readonly<Record<LayerSpec['kind'], readonly string[]>> = {
  retry: scenarioOptions('retry'),
  circuitBreaker: scenarioOptions('circuitBreaker'),
  timeLimiter: scenarioOptions('timeLimiter'),
  rateLimiter: scenarioOptions('rateLimiter'),
  bulkhead: scenarioOptions('bulkhead'),
  adaptiveLimiter: scenarioOptions('adaptiveLimiter'),
  throttle: scenarioOptions('throttle'),
  hedge: scenarioOptions('hedge'),
  chaos: scenarioOptions('chaos'),
};
const KINDS = Object.keys(LAYER_OPTIONS) as LayerSpec['kind'][];
const KIND_LIST = `${KINDS.slice(0, -1).join(', ')} or ${KINDS.at(-1)!}`;

/** The key a component's error message is about (the longest option named in it), for its position. */
function blamed(message: string, keys: readonly Entry[]): Entry | undefined {
  return [...keys].sort((a, b) => b.key.length - a.key.length).find((e) => message.includes(e.key));
}

function layerOf(src: YamlSource, node: Node, path: string): LayerSpec {
  const layer = [...src.entries(node, path, KINDS, `one layer: ${KIND_LIST}`)];
  if (layer.length !== 1) src.fail(node, path, `each layer is one key: ${KIND_LIST} (write the next layer as the next list item)`);
  const [kindKey, kindEntry] = layer[0]!;
  const kind = kindKey as LayerSpec['kind'];
  const known = ALL_OPTIONS[kind];
  const options = kindEntry.value === null ? new Map<string, Entry>() : src.entries(kindEntry.value, kindEntry.path, known, `${kind} options`);
  for (const e of options.values()) {
    if (CODE_OPTIONS.has(e.key)) src.fail(e.keyNode, e.path, 'takes code (a function, error classes or a clock), which a scenario file cannot hold');
    const unsimulated = UNSIMULATED[kind]?.[e.key];
    if (unsimulated !== undefined) src.fail(e.keyNode, e.path, unsimulated);
  }
  const spec: LayerSpec = { kind, options: Object.fromEntries([...options.values()].map((e) => [e.key, src.js(e.value)])) };
  try {
    buildLayer(spec, 'scenario', new VirtualClock(), Math.random);
  } catch (error) {
    const message = (error as Error).message;
    const e = blamed(message, [...options.values()]);
    src.fail(e?.value ?? kindEntry.keyNode, e?.path ?? kindEntry.path, message);
  }
  return spec;
}

function springOf(src: YamlSource, entry: Entry, name: string): PipelineSpec {
  const keys = src.entries(entry.value, entry.path, ['resilience4j', 'instance'], 'a Spring block');
  const block =
    keys.get('resilience4j') ?? src.fail(entry.keyNode, entry.path, "a Spring pipeline needs 'resilience4j' (the block of application.yml) and 'instance'");
  const resilience4j = src.js(block.value);
  if (typeof resilience4j !== 'object' || resilience4j === null || Array.isArray(resilience4j)) src.fail(block.value, block.path, 'must be a mapping');
  for (const section of Object.keys(resilience4j)) {
    const r = relaxed(section);
    if (r === 'threadpoolbulkhead') {
      src.fail(
        block.value,
        `${block.path}.${section}`,
        'is not simulated yet (the simulator runs retry, circuitbreaker, ratelimiter, timelimiter and bulkhead)',
      );
    }
  }
  const instanceEntry = keys.get('instance') ?? src.fail(entry.keyNode, entry.path, "needs 'instance': the name of the instances to take from the block");
  const spec: PipelineSpec = { name, kind: 'spring', resilience4j, instance: text(src, instanceEntry) };
  try {
    buildPipeline(spec, new VirtualClock(), Math.random);
  } catch (error) {
    const message = (error as Error).message;
    // A name no section has is the instance's fault, not a section's.
    const at = message.includes('no section has an instance named') ? { node: instanceEntry.value, path: instanceEntry.path } : springKeyAt(block, message);
    src.fail(at.node, at.path, message);
  }
  return spec;
}

/** The pair of a YAML mapping whose key satisfies `match`. */
function pairOf(node: Node | null, match: (key: string) => boolean): Pair<Node, Node | null> | undefined {
  if (!isMap(node)) return undefined;
  return (node.items as Pair<Node, Node | null>[]).find((p) => isScalar(p.key) && match(String(p.key.value)));
}

/**
 * Where in the block a `fromConfig` error is: it names the path (`resilience4j.retry.instances.pg`)
 * and often the option (`maxAttempts`, `sliding-window-siz`); follow both as far as the YAML has them.
 */
function springKeyAt(block: Entry, message: string): { node: Node | null | undefined; path: string } {
  const dotted = /resilience4j\.([^\s:]+)/.exec(message)?.[1]?.split('.') ?? [];
  let node: Node | null | undefined = block.value;
  let keyNode: Node | null | undefined = block.keyNode;
  let path = block.path;
  const step = (pair: Pair<Node, Node | null>) => {
    keyNode = pair.key;
    node = pair.value;
    path = `${path}.${String((pair.key as { value: unknown }).value)}`;
  };
  for (const key of dotted) {
    const pair = pairOf(node, (k) => k === key);
    if (pair === undefined) break;
    step(pair);
  }
  const words = new Set((message.match(/[A-Za-z][\w-]*/g) ?? []).map(relaxed));
  const option = pairOf(node, (k) => words.has(relaxed(k)));
  if (option !== undefined) step(option);
  return { node: keyNode ?? node, path };
}

/**
 * The `pipelines:` mapping: each name maps to a list of layers (`- retry: {…}`, outermost first)
 * or to a Spring block (`resilience4j:` and `instance:`). Every component is built once here, so
 * a bad option is refused before anything runs.
 */
export function parsePipelines(src: YamlSource, entry: Entry): PipelineSpec[] {
  const named = src.namedEntries(entry.value, entry.path);
  if (named.length === 0) src.fail(entry.value, entry.path, 'needs at least one pipeline');
  return named.map((e) => {
    if (isSeq(e.value)) {
      const nodes = src.items(e.value, e.path);
      const layers = nodes.map((node, i) => layerOf(src, node, `${e.path}[${i}]`));
      const outer = layers.findIndex((l, i) => l.kind === 'chaos' && layers.slice(i + 1).some((below) => below.kind !== 'chaos'));
      if (outer >= 0) {
        const below = layers.slice(outer + 1).find((l) => l.kind !== 'chaos')!.kind;
        src.fail(
          nodes[outer]!,
          `${e.path}[${outer}]`,
          `a chaos layer goes innermost, below every other layer (here a ${below} is below it): it stands for the dependency misbehaving, ` +
            'which every layer of the pipeline should see (decorate() warns of the same order)',
        );
      }
      return { name: e.key, kind: 'layers', layers };
    }
    return springOf(src, e, e.key);
  });
}
