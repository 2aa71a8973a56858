// The public types of fromConfig: what it returns, and what it takes besides the parsed YAML.
import type { BulkheadRegistry, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import type { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { Clock, ErrorClass } from '@breakwater/core';
import type { Pipeline } from '@breakwater/decorators';
import type { RateLimiterRegistry } from '@breakwater/rate-limiter';
import type { RetryRegistry } from '@breakwater/retry';
import type { TimeLimiterRegistry } from '@breakwater/time-limiter';

/**
 * A key of the file that fromConfig read and did not turn into a setting, with what it did
 * instead: `ignored: <why>` (Spring Boot or JVM machinery with nothing to act on here), or
 * `read into aspectOrder: …`.
 *
 * @example
 * ```ts
 * for (const note of fromConfig(yml).notes) console.info(`${note.path}: ${note.message}`);
 * // resilience4j.circuitbreaker.metrics.enabled: ignored: Resilience4j’s Micrometer metrics …
 * ```
 */
export interface FromConfigNote {
  /** The key as written in the file (`resilience4j.circuitbreaker.instances.pg.register-health-indicator`). */
  readonly path: string;
  readonly message: string;
}

/** A kind with a Spring AOP aspect (the thread-pool bulkhead goes through the bulkhead's). */
export type AspectKind = 'retry' | 'circuitBreaker' | 'rateLimiter' | 'timeLimiter' | 'bulkhead';

/**
 * One aspect of Resilience4j's Spring annotations and its order (Spring's `Ordered`: the lower,
 * the further out). See {@link BreakwaterRegistries.aspectOrder}.
 *
 * @example
 * ```ts
 * const entry: AspectOrderEntry = { kind: 'retry', order: 2_147_483_642 }; // Ordered.LOWEST_PRECEDENCE - 5
 * ```
 */
export interface AspectOrderEntry {
  readonly kind: AspectKind;
  readonly order: number;
}

/** The registries {@link fromConfig} builds, one per kind, and what it has to say about the file. */
export interface BreakwaterRegistries {
  readonly circuitBreaker: CircuitBreakerRegistry;
  readonly retry: RetryRegistry;
  readonly timeLimiter: TimeLimiterRegistry;
  readonly bulkhead: BulkheadRegistry;
  readonly poolBulkhead: PoolBulkheadRegistry;
  readonly rateLimiter: RateLimiterRegistry;
  /**
   * Every key of the file read without becoming a setting, in the order read: the Spring Boot
   * keys with no meaning here (`metrics.enabled`, `register-health-indicator`,
   * `event-consumer-buffer-size`, `tags`, …) and why, the aspect orders read, two aspects given
   * one order. Empty when every key became a setting.
   */
  readonly notes: readonly FromConfigNote[];
  /**
   * The order of Resilience4j's Spring aspects, outermost first: Resilience4j's defaults
   * (`Retry ( CircuitBreaker ( RateLimiter ( TimeLimiter ( Bulkhead ( fn ) ) ) ) )`) with the
   * file's `<kind>-aspect-order` keys applied (a lower order is further out; a tie keeps the
   * default order between the two, and is noted). {@link BreakwaterRegistries.pipeline} builds
   * its layers in this order.
   */
  readonly aspectOrder: readonly AspectOrderEntry[];
  /**
   * The pipeline Resilience4j's Spring annotations build around a method annotated with every
   * kind, all naming `name` (`@Retry(name = "backendA") @CircuitBreaker(name = "backendA") …`):
   * the instance `name` of each section, in {@link BreakwaterRegistries.aspectOrder} —
   * `Retry ( CircuitBreaker ( RateLimiter ( TimeLimiter ( Bulkhead ( fn ) ) ) ) )` unless the
   * file's `*-aspect-order` keys move an aspect. A section whose `instances` (or `backends`,
   * `limiters`) do not name `name` adds no layer, as Spring adds no aspect for an annotation the
   * method does not carry; the bulkhead layer is `bulkhead`'s instance, else
   * `thread-pool-bulkhead`'s (`options.bulkheadType` chooses, as `@Bulkhead(type = …)` does).
   * The layers are the registries' own instances (the same objects `get(name)` gives); each call
   * builds a new `Pipeline` named `name`, whose `warnings` say what an order moved by the file loses.
   *
   * @throws TypeError when `name` is not a non-empty string or `options` is not an object
   * @throws RangeError when no section names an instance `name` (the message gives the closest
   * name and each section's names), or on a bad option
   * @example
   * ```ts
   * const pay = fromConfig(parse(readFileSync('application.yml', 'utf8'))).pipeline('backendA');
   * pay.describe(); // "Retry 'backendA' → CircuitBreaker 'backendA' → TimeLimiter 'backendA' → fn"
   * await pay.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }));
   * ```
   */
  pipeline(name: string, options?: SpringPipelineOptions): Pipeline;
}

/**
 * Options of {@link BreakwaterRegistries.pipeline}.
 *
 * @example
 * ```ts
 * fromConfig(yml).pipeline('reports', { bulkheadType: 'THREADPOOL' }); // resilience4j.thread-pool-bulkhead.instances.reports
 * ```
 */
export interface SpringPipelineOptions {
  /**
   * Which bulkhead the bulkhead layer is, as `@Bulkhead(name, type = Bulkhead.Type.THREADPOOL)`
   * says in Java: `'SEMAPHORE'` (the `bulkhead` section's instance) or `'THREADPOOL'` (the
   * `thread-pool-bulkhead` section's, a `PoolBulkhead`); the section must name the instance.
   * Default: the `bulkhead` section's instance when it has one, else the `thread-pool-bulkhead`
   * section's, else no bulkhead layer.
   */
  readonly bulkheadType?: 'SEMAPHORE' | 'THREADPOOL';
}

/** Options of {@link fromConfig}: what a YAML file cannot hold. */
export interface FromConfigOptions {
  /** The clock of every instance (a `VirtualClock` in tests). */
  readonly clock?: Clock;
  /** Error classes by the names the config uses in `record-exceptions`, `retry-exceptions`, `ignore-exceptions`. */
  readonly classes?: Readonly<Record<string, ErrorClass>>;
  /** Predicates by the names the config uses in `record-failure-predicate`, `result-predicate`, … */
  readonly predicates?: Readonly<Record<string, (value: unknown) => boolean>>;
  /** Functions by the names the config uses in `interval-bi-function` and `consume-result-before-retry-attempt`. */
  readonly functions?: Readonly<Record<string, (...args: never[]) => unknown>>;
  /**
   * Where Spring placeholders (`${CB_WAIT:5000}`) are looked up first (default: `process.env`):
   * the name as written, then Spring's environment form (`cb.wait` → `CB_WAIT`).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * What each registry does when `get(name)` asks for a name the file's `instances` do not
   * configure (core's `RegistryOptions.onUnknownName`): `'warn'` (default), `'ignore'` or `'throw'`.
   */
  readonly onUnknownName?: 'ignore' | 'warn' | 'throw';
}
