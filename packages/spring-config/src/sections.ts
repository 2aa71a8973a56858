// The sections of `resilience4j` (one per kind), the Spring properties each one knows besides the
// options of its package, and the rules every property of a section is read by — derived from the
// package's own list of options and the key table of option-tables.ts.
import { BULKHEAD_OPTIONS, BulkheadRegistry, POOL_BULKHEAD_OPTIONS, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import { CIRCUIT_BREAKER_OPTIONS, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { Registry, RegistryOptions } from '@breakwater/core';
import { RATE_LIMITER_OPTIONS, RateLimiterRegistry } from '@breakwater/rate-limiter';
import { RETRY_OPTIONS, RetryRegistry } from '@breakwater/retry';
import { TIME_LIMITER_OPTIONS, TimeLimiterRegistry } from '@breakwater/time-limiter';
import {
  BULKHEAD_TABLE,
  CIRCUIT_BREAKER_TABLE,
  NO_EVENT_BUFFER,
  NO_HEALTH_INDICATOR,
  POOL_BULKHEAD_TABLE,
  RATE_LIMITER_TABLE,
  RETRY_TABLE,
  TIME_LIMITER_TABLE,
  type OptionSource,
  type ValueKind,
} from './option-tables.js';
import { kebabCase, relaxedName } from './relaxed-binding.js';
import type { BreakwaterRegistries } from './types.js';

/** A Spring property with no option of its own. */
type SpringOnly =
  /** Part of Spring's exponential / randomised wait: folded into an interval function. */
  | { readonly backoff: ValueKind }
  /** Spring Boot or JVM machinery that has nothing to act on here: read and ignored, for this reason. */
  | { readonly ignored: string }
  /** Spring Boot 2's lenient class binding: unknown exception class names are skipped with a warning. */
  | { readonly lenientClasses: true };

/** How a section's wait settings fold into an interval function (see wait-folding.ts). */
export interface WaitFolding {
  /** The constant wait's option, also the base of the interval function. */
  readonly from: string;
  /** The option the interval function goes to. */
  readonly to: string;
  /** The Spring property of the exponential cap. */
  readonly max: string;
  /** The wait when `from` is not given (the component's default). */
  readonly initial: number;
  /** An option that replaces the wait altogether when given (as in Resilience4j). */
  readonly replacedBy?: string;
  /** Spring refuses exponential and randomised waits together for this kind. */
  readonly exclusiveFlags?: boolean;
}

/** One Spring section (`resilience4j.<name>`), as written below. */
interface SectionSpec {
  /** Spring's name of the section. */
  readonly name: string;
  /** Where its registry goes in what fromConfig returns. */
  readonly key: keyof BreakwaterRegistries;
  /** The package's own list of options, and where each comes from. */
  readonly options: readonly string[];
  readonly table: Readonly<Record<string, OptionSource>>;
  readonly springOnly: Readonly<Record<string, SpringOnly>>;
  /** Legacy names of `instances` that Spring still binds (`backends`, `limiters`). */
  readonly aliases: readonly string[];
  /** Spring's `<kind>AspectOrder` section key, if the kind has one (the thread-pool bulkhead goes through the bulkhead's aspect). */
  readonly aspectOrder?: string;
  readonly wait?: WaitFolding;
  readonly registry: (options: RegistryOptions<object>) => Registry<{ name: string }, object>;
}

const SECTION_SPECS: readonly SectionSpec[] = [
  {
    name: 'circuitbreaker',
    key: 'circuitBreaker',
    options: CIRCUIT_BREAKER_OPTIONS,
    table: CIRCUIT_BREAKER_TABLE,
    springOnly: {
      enableExponentialBackoff: { backoff: 'boolean' },
      exponentialBackoffMultiplier: { backoff: 'number' },
      exponentialMaxWaitDurationInOpenState: { backoff: 'duration' },
      enableRandomizedWait: { backoff: 'boolean' },
      randomizedWaitFactor: { backoff: 'number' },
      ignoreClassBindingExceptions: { lenientClasses: true },
      registerHealthIndicator: { ignored: NO_HEALTH_INDICATOR },
      eventConsumerBufferSize: { ignored: NO_EVENT_BUFFER },
    },
    aliases: ['backends'],
    aspectOrder: 'circuitBreakerAspectOrder',
    wait: {
      from: 'waitDurationInOpenState',
      to: 'waitIntervalFunctionInOpenState',
      max: 'exponentialMaxWaitDurationInOpenState',
      initial: 60_000,
      exclusiveFlags: true,
    },
    registry: (o) => new CircuitBreakerRegistry(o),
  },
  {
    name: 'retry',
    key: 'retry',
    options: RETRY_OPTIONS,
    table: RETRY_TABLE,
    springOnly: {
      enableExponentialBackoff: { backoff: 'boolean' },
      exponentialBackoffMultiplier: { backoff: 'number' },
      exponentialMaxWaitDuration: { backoff: 'duration' },
      enableRandomizedWait: { backoff: 'boolean' },
      randomizedWaitFactor: { backoff: 'number' },
      eventConsumerBufferSize: { ignored: NO_EVENT_BUFFER },
    },
    aliases: ['backends'],
    aspectOrder: 'retryAspectOrder',
    wait: { from: 'waitDuration', to: 'intervalFunction', max: 'exponentialMaxWaitDuration', initial: 500, replacedBy: 'intervalBiFunction' },
    registry: (o) => new RetryRegistry(o),
  },
  {
    name: 'timelimiter',
    key: 'timeLimiter',
    options: TIME_LIMITER_OPTIONS,
    table: TIME_LIMITER_TABLE,
    springOnly: { eventConsumerBufferSize: { ignored: NO_EVENT_BUFFER } },
    aliases: [],
    aspectOrder: 'timeLimiterAspectOrder',
    registry: (o) => new TimeLimiterRegistry(o),
  },
  {
    name: 'bulkhead',
    key: 'bulkhead',
    options: BULKHEAD_OPTIONS,
    table: BULKHEAD_TABLE,
    springOnly: { eventConsumerBufferSize: { ignored: NO_EVENT_BUFFER } },
    aliases: ['backends'],
    aspectOrder: 'bulkheadAspectOrder',
    registry: (o) => new BulkheadRegistry(o),
  },
  {
    name: 'thread-pool-bulkhead',
    key: 'poolBulkhead',
    options: POOL_BULKHEAD_OPTIONS,
    table: POOL_BULKHEAD_TABLE,
    springOnly: {
      keepAliveDuration: { ignored: 'how long idle JVM threads live; a PoolBulkhead has async slots, not threads' },
      contextPropagators: {
        ignored:
          'JVM thread-locals copied to the pool’s threads; a PoolBulkhead call runs on the caller’s event loop, where AsyncLocalStorage already follows it',
      },
      eventConsumerBufferSize: { ignored: NO_EVENT_BUFFER },
    },
    aliases: ['backends'],
    registry: (o) => new PoolBulkheadRegistry(o),
  },
  {
    name: 'ratelimiter',
    key: 'rateLimiter',
    options: RATE_LIMITER_OPTIONS,
    table: RATE_LIMITER_TABLE,
    springOnly: {
      registerHealthIndicator: { ignored: NO_HEALTH_INDICATOR },
      allowHealthIndicatorToFail: { ignored: NO_HEALTH_INDICATOR },
      subscribeForEvents: { ignored: 'subscribes the Actuator’s event buffer; there is no Actuator here (subscribe with on(…))' },
      eventConsumerBufferSize: { ignored: NO_EVENT_BUFFER },
    },
    aliases: ['limiters'],
    aspectOrder: 'rateLimiterAspectOrder',
    registry: (o) => new RateLimiterRegistry(o),
  },
];

/** Keys of `resilience4j` that are not sections of a kind Breakwater has. */
export const OTHER_SECTIONS: Readonly<Record<string, { readonly ignored: string } | { readonly refused: string }>> = {
  thread: { ignored: 'the JVM thread type (platform or virtual); Node has one event loop' },
  scheduled: { ignored: 'the JVM executor of asynchronous retries; Node’s timers need none' },
  micrometer: {
    refused:
      'Breakwater has no Timer (resilience4j-micrometer’s timed calls): remove this section, or delete it from the parsed object before calling fromConfig',
  },
};

/** What a Spring property of a section is, and so how it is read. */
export type PropertyRule =
  | { readonly type: 'option'; readonly spring: string; readonly option: string; readonly kind: ValueKind; readonly values?: readonly string[] }
  | { readonly type: 'backoff'; readonly spring: string; readonly kind: ValueKind }
  | { readonly type: 'lenientClasses'; readonly spring: string }
  | { readonly type: 'ignored'; readonly spring: string; readonly reason: string }
  | { readonly type: 'refused'; readonly spring: string; readonly reason: string };

/** A section with the rules of its properties. */
export interface Section extends SectionSpec {
  /** The rules by relaxed name (see {@link relaxedName}). */
  readonly rules: ReadonlyMap<string, PropertyRule>;
}

/**
 * The rules of a section, derived from the package's own list of options: an option of the list
 * without an entry in the table is refused (so a key for it is never accepted nor dropped).
 */
function deriveRules(spec: SectionSpec): Map<string, PropertyRule> {
  const rules = new Map<string, PropertyRule>();
  const add = (name: string, rule: PropertyRule) => {
    if (!rules.has(relaxedName(name))) rules.set(relaxedName(name), rule);
  };
  const sources = spec.options.map((option) => [option, spec.table[option] ?? { refused: `fromConfig does not map the ${option} option` }] as const);
  for (const [option, source] of sources) {
    if ('spring' in source)
      add(source.spring, {
        type: 'option',
        spring: source.spring,
        option,
        kind: source.kind,
        ...(source.values === undefined ? {} : { values: source.values }),
      });
  }
  for (const [spring, only] of Object.entries(spec.springOnly)) {
    add(
      spring,
      'backoff' in only
        ? { type: 'backoff', spring, kind: only.backoff }
        : 'ignored' in only
          ? { type: 'ignored', spring, reason: only.ignored }
          : { type: 'lenientClasses', spring },
    );
  }
  for (const [option, source] of sources) {
    const reason =
      'spring' in source
        ? `is Breakwater’s name of this option; a Spring config calls it '${kebabCase(source.spring)}'`
        : 'folded' in source
          ? `cannot be given: it is built from ${source.folded}`
          : 'fromOptions' in source
            ? `is not read from the config: give it as fromConfig(config, { ${source.fromOptions} })`
            : `cannot be given in a config: ${source.refused}`;
    add(option, { type: 'refused', spring: option, reason });
  }
  return rules;
}

export const SECTIONS: readonly Section[] = SECTION_SPECS.map((spec) => ({ ...spec, rules: deriveRules(spec) }));

/** The Spring names a section knows (for messages), kebab-case. */
export function knownProperties(section: Section): string[] {
  return [...section.rules.values()].filter((r) => r.type !== 'refused').map((r) => kebabCase(r.spring));
}

/** The keys a section may hold besides properties: `configs`, `instances` and its aliases, `tags`, `metrics`, its aspect order. */
export function sectionKeys(section: Section): string[] {
  return ['configs', 'instances', ...section.aliases, 'tags', 'metrics', ...(section.aspectOrder === undefined ? [] : [kebabCase(section.aspectOrder)])];
}
