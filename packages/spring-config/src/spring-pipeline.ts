// fromConfig(…).pipeline(name): the pipeline Resilience4j's Spring aspects build around a method
// annotated with every kind that names `name`, in the order of the aspects (contract: docs/decorators.md).
import { closestName, describeValue } from '@breakwater/core/internal';
import { decorate, type Pipeline } from '@breakwater/decorators';
import type { AspectOrderEntry, BreakwaterRegistries, SpringPipelineOptions } from './types.js';

/** A registry of what fromConfig returns, by its key. */
type RegistryKey = 'circuitBreaker' | 'retry' | 'timeLimiter' | 'bulkhead' | 'poolBulkhead' | 'rateLimiter';

/** What {@link springPipeline} reads: the registries, the instance names each section's file gives, the aspects' order. */
export interface PipelineSources {
  readonly registries: Pick<BreakwaterRegistries, RegistryKey>;
  /** The names under `instances` (or `backends`, `limiters`) of each section the file has, by registry. */
  readonly named: ReadonlyMap<RegistryKey, ReadonlySet<string>>;
  /** The aspects, outermost first (`aspectOrder`). */
  readonly order: readonly AspectOrderEntry[];
}

/** Spring's name of each section, for messages. */
const SECTION_NAMES: Readonly<Record<RegistryKey, string>> = {
  retry: 'retry',
  circuitBreaker: 'circuitbreaker',
  rateLimiter: 'ratelimiter',
  timeLimiter: 'timelimiter',
  bulkhead: 'bulkhead',
  poolBulkhead: 'thread-pool-bulkhead',
};

const BULKHEAD_TYPES = ['SEMAPHORE', 'THREADPOOL'] as const;

/**
 * The pipeline of `name`: for each aspect in `order` (outermost first), the instance `name` of its
 * section, or no layer when the section does not name it (as Spring adds only the aspects whose
 * annotation the method carries). The bulkhead's aspect takes `bulkhead`'s instance, else
 * `thread-pool-bulkhead`'s (`options.bulkheadType` chooses). A name no section has is a RangeError.
 */
export function springPipeline(sources: PipelineSources, name: unknown, options?: SpringPipelineOptions): Pipeline {
  const where = `fromConfig(…).pipeline(${typeof name === 'string' ? `'${name}'` : '…'})`;
  if (typeof name !== 'string' || name === '') throw new TypeError(`${where}: name must be a non-empty string (an instance name), got ${describeValue(name)}`);
  const bulkheadType = checkOptions(where, options);
  const { registries, named } = sources;
  const has = (key: RegistryKey) => named.get(key)?.has(name) === true;
  const keys = Object.keys(SECTION_NAMES) as RegistryKey[];
  if (!keys.some(has)) throw new RangeError(`${where}: ${missingMessage(name, named)}`);

  let bulkheadKey: RegistryKey | undefined;
  if (bulkheadType === undefined) bulkheadKey = has('bulkhead') ? 'bulkhead' : has('poolBulkhead') ? 'poolBulkhead' : undefined;
  else {
    bulkheadKey = bulkheadType === 'SEMAPHORE' ? 'bulkhead' : 'poolBulkhead';
    if (!has(bulkheadKey)) {
      throw new RangeError(
        `${where}: bulkheadType '${bulkheadType}' takes resilience4j.${SECTION_NAMES[bulkheadKey]}.instances.${name}, which the file does not have`,
      );
    }
  }

  let pipeline = decorate(name);
  for (const { kind } of sources.order) {
    if (kind === 'retry' && has('retry')) pipeline = pipeline.withRetry(registries.retry.get(name));
    else if (kind === 'circuitBreaker' && has('circuitBreaker')) pipeline = pipeline.withCircuitBreaker(registries.circuitBreaker.get(name));
    else if (kind === 'rateLimiter' && has('rateLimiter')) pipeline = pipeline.withRateLimiter(registries.rateLimiter.get(name));
    else if (kind === 'timeLimiter' && has('timeLimiter')) pipeline = pipeline.withTimeLimiter(registries.timeLimiter.get(name));
    else if (kind === 'bulkhead' && bulkheadKey !== undefined)
      pipeline = pipeline.withBulkhead(bulkheadKey === 'bulkhead' ? registries.bulkhead.get(name) : registries.poolBulkhead.get(name));
  }
  return pipeline;
}

/** The options, checked; the bulkhead type asked for, if any. */
function checkOptions(where: string, options: unknown): SpringPipelineOptions['bulkheadType'] {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`${where}: options must be an object, got ${describeValue(options)}`);
  for (const key of Object.keys(options)) {
    if (key !== 'bulkheadType') throw new RangeError(`${where}: unknown option '${key}' (known: bulkheadType)`);
  }
  const type = (options as SpringPipelineOptions).bulkheadType;
  if (type !== undefined && !BULKHEAD_TYPES.includes(type))
    throw new RangeError(`${where}: bulkheadType must be one of ${BULKHEAD_TYPES.map((t) => `'${t}'`).join(', ')}, got ${describeValue(type)}`);
  return type;
}

/** Why no layer has `name`: the closest name any section has, and each section's names. */
function missingMessage(name: string, named: PipelineSources['named']): string {
  const all = [...new Set([...named.values()].flatMap((names) => [...names]))];
  const guess = closestName(name, all);
  const lists = [...named]
    .filter(([, names]) => names.size > 0)
    .map(([key, names]) => `${SECTION_NAMES[key]}: ${[...names].join(', ')}`)
    .join('; ');
  return (
    `no section has an instance named '${name}'${guess === undefined ? '' : ` (did you mean '${guess}'?)`}: ` +
    `a pipeline is built from the instances of that name (${lists === '' ? 'the file names no instance' : `the file has ${lists}`})`
  );
}
