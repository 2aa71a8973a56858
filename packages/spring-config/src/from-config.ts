// fromConfig: where Resilience4j's settings are in what it is given (a whole application.yml, or
// the sections alone), and one registry per kind from them.
import type { BulkheadRegistry, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import type { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { Registry } from '@breakwater/core';
import type { RateLimiterRegistry } from '@breakwater/rate-limiter';
import type { RetryRegistry } from '@breakwater/retry';
import type { TimeLimiterRegistry } from '@breakwater/time-limiter';
import { OptionBuilder } from './build-options.js';
import { buildRegistry } from './build-registry.js';
import { childPath, failAt } from './paths.js';
import { closestKey, relaxedName, unknownKeyMessage } from './relaxed-binding.js';
import { OTHER_SECTIONS, SECTIONS } from './sections.js';
import type { BreakwaterRegistries, FromConfigOptions } from './types.js';
import { asMapping, expandDottedKeys, pickKey } from './yaml-tree.js';

/**
 * Builds every registry from a Spring Boot `application.yml` (parsed to an object), so a team
 * carries its Resilience4j settings over: `resilience4j.circuitbreaker.configs.default`,
 * `…instances.<name>` with `base-config`, Spring's relaxed binding of names and values, dotted
 * keys. Everything next to `resilience4j` (`server`, `spring`, `management`, …) is ignored. Each
 * instance is created at once (so a bad value fails here, not on first use). An unknown key is an
 * error that names its path and the key it is closest to. Without a `base-config`, an instance is
 * laid over `configs.default`, as in Spring.
 *
 * @example
 * ```ts
 * import { parse } from 'yaml';
 * const registries = fromConfig(parse(readFileSync('application.yml', 'utf8')));
 * const breaker = registries.circuitBreaker.get('pg-simulator');
 * ```
 */
export function fromConfig(config: unknown, options: FromConfigOptions = {}): BreakwaterRegistries {
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
      if (guess !== undefined) failAt(key, `unknown key, did you mean '${guess}'? (Resilience4j's settings are under 'resilience4j'; the other top-level keys are ignored)`);
    }
  }

  const built: Partial<Record<keyof BreakwaterRegistries, Registry<{ name: string }, object>>> = {};
  const seen = new Map<string, string>();
  for (const [key, raw] of Object.entries(body)) {
    const at = childPath(prefix, key);
    const name = relaxedName(key);
    if (seen.has(name)) failAt(at, `is given twice (also as '${seen.get(name)}')`);
    seen.set(name, key);
    const other = Object.entries(OTHER_SECTIONS).find(([n]) => relaxedName(n) === name)?.[1];
    if (other !== undefined) {
      if ('refused' in other) failAt(at, other.refused);
      continue;
    }
    const section = SECTIONS.find((s) => relaxedName(s.name) === name);
    if (section === undefined) failAt(at, unknownKeyMessage('section', key, sectionNames));
    built[section.key] = buildRegistry(builder, at, section, raw);
  }
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const registry = (key: keyof BreakwaterRegistries) => built[key] ?? SECTIONS.find((s) => s.key === key)!.registry({ defaultConfig: clock, configs: {} });
  return {
    circuitBreaker: registry('circuitBreaker') as CircuitBreakerRegistry,
    retry: registry('retry') as RetryRegistry,
    timeLimiter: registry('timeLimiter') as TimeLimiterRegistry,
    bulkhead: registry('bulkhead') as BulkheadRegistry,
    poolBulkhead: registry('poolBulkhead') as PoolBulkheadRegistry,
    rateLimiter: registry('rateLimiter') as RateLimiterRegistry,
  };
}
