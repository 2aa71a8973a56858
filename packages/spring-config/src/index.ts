/**
 * `@breakwater/spring-config`: `fromConfig` carries a Java service's Resilience4j Spring Boot
 * settings (its `application.yml`, parsed) over to Breakwater registries, every key checked.
 *
 * @example
 * ```ts
 * import { parse } from 'yaml';
 * import { fromConfig } from '@breakwater/spring-config';
 * const registries = fromConfig(parse(readFileSync('application.yml', 'utf8')));
 * const breaker = registries.circuitBreaker.get('pg-simulator');
 * const pay = registries.pipeline('pg'); // Retry → CircuitBreaker → … as Spring's aspects order them
 * ```
 * @packageDocumentation
 */
export { fromConfig } from './from-config.js';
export type { AspectKind, AspectOrderEntry, BreakwaterRegistries, FromConfigNote, FromConfigOptions, SpringPipelineOptions } from './types.js';
