// The key table, per kind. Each package's own list of options (CIRCUIT_BREAKER_OPTIONS, …) says
// what there is to map; the tables below say, for every one of them, which Spring property gives
// it, or why none can. The `satisfies` clauses make a new option of a package a compile error here
// until it has an entry, and an option without one is refused at run time (never dropped): see
// `deriveRules` in sections.ts.
import type { BULKHEAD_OPTIONS, POOL_BULKHEAD_OPTIONS } from '@breakwater/bulkhead';
import { STATES, type CIRCUIT_BREAKER_OPTIONS } from '@breakwater/circuit-breaker';
import type { RATE_LIMITER_OPTIONS } from '@breakwater/rate-limiter';
import type { RETRY_OPTIONS } from '@breakwater/retry';
import type { TIME_LIMITER_OPTIONS } from '@breakwater/time-limiter';
import type { FromConfigOptions } from './types.js';

/** How a Spring value is read (see `bindValue` in values.ts). */
export type ValueKind = 'number' | 'boolean' | 'duration' | 'enum' | 'classes' | 'predicate' | 'function';

/** Where one option of a package comes from in a Spring config, or why no key can give it. */
export type OptionSource =
  /** The Spring property (camelCase) that gives the option. `breakwaterOnly`: not in Resilience4j's Spring properties. */
  | { readonly spring: string; readonly kind: ValueKind; readonly values?: readonly string[]; readonly breakwaterOnly?: true }
  /** Built from other Spring properties (which ones). */
  | { readonly folded: string }
  /** Given to `fromConfig` itself, not in the file. */
  | { readonly fromOptions: keyof FromConfigOptions }
  /** No key can give it: the reason. */
  | { readonly refused: string };

/** A table for a package's list of options `L`: an entry for every option of the list, and only those. */
type OptionTable<L extends readonly string[]> = { readonly [K in L[number]]: OptionSource };

/** The option is given by the Spring property `spring`, read as `kind`. */
const springKey = (spring: string, kind: ValueKind, values?: readonly string[]): OptionSource =>
  values === undefined ? { spring, kind } : { spring, kind, values };
/** The option is given by a property of Breakwater's own, which Resilience4j's Spring properties do not have. */
const breakwaterOnly = (spring: string, kind: ValueKind): OptionSource => ({ spring, kind, breakwaterOnly: true });
/** The `clock` option of every kind: from `fromConfig`'s options. */
const CLOCK_FROM_OPTIONS: OptionSource = { fromOptions: 'clock' };

/** Why the health-indicator properties are read and ignored. */
export const NO_HEALTH_INDICATOR =
  "a Spring Boot Actuator health indicator; every component is already in Breakwater's health() with no switch (allow-health-indicator-to-fail is read: it lets an OPEN breaker make the whole DOWN)";
/** Why `event-consumer-buffer-size` is read and ignored. */
export const NO_EVENT_BUFFER = 'the size of the Actuator’s event buffer; there is no Actuator here (subscribe with on(…))';

export const CIRCUIT_BREAKER_TABLE = {
  failureRateThreshold: springKey('failureRateThreshold', 'number'),
  slowCallRateThreshold: springKey('slowCallRateThreshold', 'number'),
  slowCallDurationThreshold: springKey('slowCallDurationThreshold', 'duration'),
  slidingWindowType: springKey('slidingWindowType', 'enum', ['COUNT_BASED', 'TIME_BASED']),
  slidingWindowSize: springKey('slidingWindowSize', 'number'),
  minimumNumberOfCalls: springKey('minimumNumberOfCalls', 'number'),
  permittedNumberOfCallsInHalfOpenState: springKey('permittedNumberOfCallsInHalfOpenState', 'number'),
  waitDurationInOpenState: springKey('waitDurationInOpenState', 'duration'),
  waitIntervalFunctionInOpenState: { folded: 'wait-duration-in-open-state with enable-exponential-backoff or enable-randomized-wait' },
  automaticTransitionFromOpenToHalfOpenEnabled: springKey('automaticTransitionFromOpenToHalfOpenEnabled', 'boolean'),
  maxWaitDurationInHalfOpenState: springKey('maxWaitDurationInHalfOpenState', 'duration'),
  transitionToStateAfterWaitDuration: springKey('transitionToStateAfterWaitDuration', 'enum', ['OPEN', 'CLOSED']),
  recordExceptions: springKey('recordExceptions', 'classes'),
  recordException: springKey('recordFailurePredicate', 'predicate'),
  ignoreExceptions: springKey('ignoreExceptions', 'classes'),
  ignoreException: springKey('ignoreExceptionPredicate', 'predicate'),
  recordResult: springKey('recordResultPredicate', 'predicate'),
  initialState: springKey('initialState', 'enum', STATES),
  writableStackTraceEnabled: springKey('writableStackTraceEnabled', 'boolean'),
  allowHealthIndicatorToFail: springKey('allowHealthIndicatorToFail', 'boolean'),
  clock: CLOCK_FROM_OPTIONS,
} as const satisfies OptionTable<typeof CIRCUIT_BREAKER_OPTIONS>;

export const RETRY_TABLE = {
  maxAttempts: springKey('maxAttempts', 'number'),
  waitDuration: springKey('waitDuration', 'duration'),
  intervalFunction: { folded: 'wait-duration with enable-exponential-backoff or enable-randomized-wait' },
  intervalBiFunction: springKey('intervalBiFunction', 'function'),
  retryExceptions: springKey('retryExceptions', 'classes'),
  retryOnException: springKey('retryExceptionPredicate', 'predicate'),
  ignoreExceptions: springKey('ignoreExceptions', 'classes'),
  retryOnResult: springKey('resultPredicate', 'predicate'),
  failAfterMaxAttempts: springKey('failAfterMaxAttempts', 'boolean'),
  consumeResultBeforeRetryAttempt: springKey('consumeResultBeforeRetryAttempt', 'function'),
  retryCallNotPermitted: breakwaterOnly('retryCallNotPermitted', 'boolean'),
  budget: {
    refused:
      'a RetryBudget is a live object shared by several retries, which a config file cannot hold: create that Retry in code (new Retry(name, { budget, … }))',
  },
  clock: CLOCK_FROM_OPTIONS,
  random: { refused: 'a source of randomness is code, not configuration: create that Retry in code (new Retry(name, { random, … }))' },
} as const satisfies OptionTable<typeof RETRY_OPTIONS>;

export const TIME_LIMITER_TABLE = {
  timeoutDuration: springKey('timeoutDuration', 'duration'),
  cancelRunningFuture: springKey('cancelRunningFuture', 'boolean'),
  clock: CLOCK_FROM_OPTIONS,
} as const satisfies OptionTable<typeof TIME_LIMITER_OPTIONS>;

export const BULKHEAD_TABLE = {
  maxConcurrentCalls: springKey('maxConcurrentCalls', 'number'),
  maxWaitDuration: springKey('maxWaitDuration', 'duration'),
  fairCallHandlingEnabled: breakwaterOnly('fairCallHandlingEnabled', 'boolean'),
  writableStackTraceEnabled: springKey('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK_FROM_OPTIONS,
} as const satisfies OptionTable<typeof BULKHEAD_OPTIONS>;

export const POOL_BULKHEAD_TABLE = {
  maxThreadPoolSize: springKey('maxThreadPoolSize', 'number'),
  coreThreadPoolSize: springKey('coreThreadPoolSize', 'number'),
  queueCapacity: springKey('queueCapacity', 'number'),
  writableStackTraceEnabled: springKey('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK_FROM_OPTIONS,
} as const satisfies OptionTable<typeof POOL_BULKHEAD_OPTIONS>;

export const RATE_LIMITER_TABLE = {
  limitForPeriod: springKey('limitForPeriod', 'number'),
  limitRefreshPeriod: springKey('limitRefreshPeriod', 'duration'),
  timeoutDuration: springKey('timeoutDuration', 'duration'),
  drainPermissionsOnResult: breakwaterOnly('drainPermissionsOnResult', 'predicate'),
  writableStackTraceEnabled: springKey('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK_FROM_OPTIONS,
} as const satisfies OptionTable<typeof RATE_LIMITER_OPTIONS>;
