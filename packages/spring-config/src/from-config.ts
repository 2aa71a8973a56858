// fromConfig: where Resilience4j's settings are in what it is given (a whole application.yml, or
// the sections alone), and one registry per kind from them.
import type { BulkheadRegistry, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import type { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { Registry } from '@breakwater/core';
import type { RateLimiterRegistry } from '@breakwater/rate-limiter';
import type { RetryRegistry } from '@breakwater/retry';
import type { TimeLimiterRegistry } from '@breakwater/time-limiter';
import { aspectOrder } from './aspect-order.js';
import { OptionBuilder } from './build-options.js';
import { buildRegistry, prepareSection, type PreparedSection } from './build-registry.js';
import { childPath, describeFound, failAt } from './paths.js';
import { resolvePlaceholders } from './placeholders.js';
import { closestKey, relaxedName, unknownKeyMessage } from './relaxed-binding.js';
import { OTHER_SECTIONS, SECTIONS } from './sections.js';
import { springPipeline, type PipelineSources } from './spring-pipeline.js';
import type { AspectKind, BreakwaterRegistries, FromConfigOptions } from './types.js';
import { asMapping, expandDottedKeys, pickKey } from './yaml-tree.js';

/**
 * Builds every registry from a Spring Boot `application.yml` (parsed to an object), so a team
 * carries its Resilience4j settings over: `resilience4j.circuitbreaker.configs.default`,
 * `…instances.<name>` with `base-config`, Spring's relaxed binding of names and values, dotted
 * keys, placeholders (`${CB_WAIT:5000}`, from `options.env`). Everything next to `resilience4j`
 * (`server`, `spring`, `management`, …) is ignored. Each instance is created at once (so a bad
 * value fails here, not on first use). An unknown key is an error that names its path and the key
 * it is closest to; the names of classes, predicates and functions it cannot map are reported all
 * at once. Without a `base-config`, an instance is laid over `configs.default`, as in Spring. A
 * registry then tells a `get` of a name its instances do not configure (`options.onUnknownName`,
 * default `'warn'`). `notes` lists the keys read without becoming a setting (and why);
 * `aspectOrder` the order of Resilience4j's Spring aspects; `pipeline(name)` the layers Spring's
 * annotations would wrap a method in, in that order.
 *
 * @example
 * ```ts
 * import { parse } from 'yaml';
 * const registries = fromConfig(parse(readFileSync('application.yml', 'utf8')), { env: process.env });
 * const breaker = registries.circuitBreaker.get('pg-simulator');
 * const pay = registries.pipeline('pg'); // "Retry 'pg' → CircuitBreaker 'pg' → TimeLimiter 'pg' → fn"
 * for (const note of registries.notes) console.info(`${note.path}: ${note.message}`);
 * ```
 */
export function fromConfig(config: unknown, options: FromConfigOptions = {}): BreakwaterRegistries {
  if (options.onUnknownName !== undefined && !['ignore', 'warn', 'throw'].includes(options.onUnknownName)) {
    throw new TypeError(`fromConfig: options.onUnknownName must be one of 'ignore', 'warn', 'throw', got ${describeFound(options.onUnknownName)}`);
  }
  if (options.env !== undefined && (typeof options.env !== 'object' || options.env === null)) {
    throw new TypeError(`fromConfig: options.env must be an object of strings (like process.env), got ${describeFound(options.env)}`);
  }
  const builder = new OptionBuilder(options);
  const top = asMapping('', config);
  const sectionNames = [...SECTIONS.map((s) => s.name), ...Object.keys(OTHER_SECTIONS)];
  const isSection = (key: string) => sectionNames.some((n) => relaxedName(n) === relaxedName(key));
  // The first name of a top-level key (`resilience4j` of `resilience4j.retry`), read leniently:
  // the keys of others are not ours to check.
  const firstName = (key: string) => (key.startsWith('[') ? key : key.split('.')[0]!);
  const ours = Object.keys(top).filter((key) => relaxedName(firstName(key)) === 'resilience4j');

  let body: Record<string, unknown> = {};
  let prefix = '';
  if (ours.length > 0) {
    // A whole application.yml: the keys next to resilience4j belong to Spring and others, and
    // are neither read nor checked.
    const root = expandDottedKeys('', Object.fromEntries(ours.map((key) => [key, top[key]]))) as Record<string, unknown>;
    const resilience4j = pickKey('', root, 'resilience4j')!;
    body = asMapping(resilience4j.at, resilience4j.value);
    prefix = resilience4j.at;
  } else if (Object.keys(top).some((key) => isSection(firstName(key)))) {
    body = expandDottedKeys('', top) as Record<string, unknown>; // the sections alone, as under resilience4j
  } else {
    for (const key of Object.keys(top)) {
      const guess = closestKey(firstName(key), ['resilience4j', ...sectionNames]);
      if (guess !== undefined)
        failAt(key, `unknown key, did you mean '${guess}'? (Resilience4j's settings are under 'resilience4j'; the other top-level keys are ignored)`);
    }
  }
  body = resolvePlaceholders(prefix, body, { env: options.env ?? process.env, file: top }) as Record<string, unknown>;

  const prepared: PreparedSection[] = [];
  const seen = new Map<string, string>();
  for (const [key, raw] of Object.entries(body)) {
    const at = childPath(prefix, key);
    const name = relaxedName(key);
    if (seen.has(name)) failAt(at, `is given twice (also as '${seen.get(name)}')`);
    seen.set(name, key);
    const other = Object.entries(OTHER_SECTIONS).find(([n]) => relaxedName(n) === name)?.[1];
    if (other !== undefined) {
      if ('refused' in other) failAt(at, other.refused);
      builder.notes.push({ path: at, message: `ignored: ${other.ignored}` });
      continue;
    }
    const section = SECTIONS.find((s) => relaxedName(s.name) === name);
    if (section === undefined) failAt(at, unknownKeyMessage('section', key, sectionNames));
    prepared.push(prepareSection(builder, at, section, raw));
  }
  // Every unmapped name of every section at once, before any registry is made.
  builder.throwUnmapped();

  const built: Partial<Record<keyof BreakwaterRegistries, Registry<{ name: string }, object>>> = {};
  const orders = new Map<AspectKind, { at: string; order: number }>();
  const named = new Map<string, ReadonlySet<string>>();
  for (const section of prepared) {
    built[section.section.key] = buildRegistry(section, options.onUnknownName);
    named.set(section.section.key, new Set(section.instances.map((i) => i.name)));
    if (section.aspectOrder !== undefined) orders.set(section.section.key as AspectKind, section.aspectOrder);
  }
  const notes = builder.notes;
  const order = aspectOrder(orders, notes);
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const registry = (key: keyof BreakwaterRegistries) => built[key] ?? SECTIONS.find((s) => s.key === key)!.registry({ defaultConfig: clock });
  const registries = {
    circuitBreaker: registry('circuitBreaker') as CircuitBreakerRegistry,
    retry: registry('retry') as RetryRegistry,
    timeLimiter: registry('timeLimiter') as TimeLimiterRegistry,
    bulkhead: registry('bulkhead') as BulkheadRegistry,
    poolBulkhead: registry('poolBulkhead') as PoolBulkheadRegistry,
    rateLimiter: registry('rateLimiter') as RateLimiterRegistry,
  };
  const sources: PipelineSources = { registries, named: named as PipelineSources['named'], order };
  return {
    ...registries,
    notes,
    aspectOrder: order,
    pipeline: (name, pipelineOptions) => springPipeline(sources, name, pipelineOptions),
  };
}
