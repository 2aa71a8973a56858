import { BREAKER_STATES, labelValue, stateLabel, type ObservedAdaptiveLimiter, type ObservedPoolBulkhead, type ObservedThrottle } from './observed.js';
import type { ObservedSnapshot } from './observed-components.js';

/**
 * One value of a series: its labels (attributes) and value. A `name` label is the component's
 * name through {@link labelValue}.
 *
 * @example
 * ```ts
 * const sample: ObservedSample = { labels: { name: 'pg', state: 'open' }, value: 1 };
 * ```
 */
export interface ObservedSample {
  readonly labels: Record<string, string>;
  readonly value: number;
}

/**
 * One gauge or counter read from the components' `metrics` at collect time: its name after the
 * prefix (Resilience4j's Micrometer name, `_` separated, `_total` on counters), what it means,
 * its labels, which kind it reads (`of`) and the samples each component gives.
 *
 * @example
 * ```ts
 * for (const s of OBSERVED_SERIES) for (const entry of snapshot[s.of]) s.samples(entry, out);
 * ```
 */
export interface ObservedSeries<K extends keyof ObservedSnapshot = keyof ObservedSnapshot> {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
  readonly labelNames: readonly string[];
  readonly of: K;
  readonly samples: (entry: ObservedSnapshot[K][number], out: ObservedSample[]) => void;
}

const series = <K extends keyof ObservedSnapshot>(s: ObservedSeries<K>): ObservedSeries => s as unknown as ObservedSeries;
// Every `name` label goes through labelValue: distinct names stay distinct series, in valid UTF-8.
const one = (name: string, value: number): ObservedSample => ({ labels: { name: labelValue(name) }, value });
const kinded = (name: string, kind: string, value: number): ObservedSample => ({ labels: { name: labelValue(name), kind }, value });

const POOL: readonly (readonly [string, string, (m: ObservedPoolBulkhead['metrics']) => number])[] = [
  ['bulkhead_queue_depth', "Tasks waiting in the pool bulkhead's queue", (m) => m.queueDepth],
  ['bulkhead_queue_capacity', "Capacity of the pool bulkhead's queue", (m) => m.queueCapacity],
  ['bulkhead_thread_pool_size', 'Workers of the pool bulkhead now', (m) => m.threadPoolSize],
  ['bulkhead_core_thread_pool_size', 'Core size of the pool bulkhead', (m) => m.coreThreadPoolSize],
  ['bulkhead_max_thread_pool_size', 'Maximum size of the pool bulkhead', (m) => m.maximumThreadPoolSize],
  ['bulkhead_active_thread_count', 'Workers of the pool bulkhead running a task', (m) => m.activeCount],
  ['bulkhead_available_thread_count', 'Workers the pool bulkhead could still run (maximum size − active)', (m) => m.maximumThreadPoolSize - m.activeCount],
];

// The adaptive limiter's limit beside its calls in flight is the panel that shows it working:
// in-flight pressing on the limit while the limit moves with the backend's round trips.
const ADAPTIVE: readonly (readonly [string, string, 'gauge' | 'counter', (m: ObservedAdaptiveLimiter['metrics']) => number])[] = [
  ['adaptive_limit', "The adaptive limiter's concurrency limit now (its algorithm's)", 'gauge', (m) => m.limit],
  ['adaptive_in_flight', 'Calls holding a place under the adaptive limit', 'gauge', (m) => m.inFlight],
  ['adaptive_waiting', 'Calls waiting for a place under the adaptive limit', 'gauge', (m) => m.waiting],
  ['adaptive_rejected_calls_total', 'Calls the adaptive limiter refused (since it was made)', 'counter', (m) => m.rejected],
];

/** The `attempt` label values of a hedge's wins, made once (a hedge starts at most 11 attempts). */
const ATTEMPTS: readonly string[] = Array.from({ length: 11 }, (_, i) => String(i + 1));

// The throttle's counts are over its sliding window (they fall as the window slides), so they are gauges, not counters.
const THROTTLE: readonly (readonly [string, string, (m: ObservedThrottle['metrics']) => number])[] = [
  [
    'throttle_reject_ratio',
    'The probability that the throttle rejects a request locally now: max(0, (requests - k * accepts) / (requests + 1)), capped',
    (m) => m.rejectRatio,
  ],
  ['throttle_requests', "Requests in the throttle's window (those it rejected locally included)", (m) => m.requests],
  ['throttle_accepts', "Requests the backend accepted in the throttle's window", (m) => m.accepts],
];

/**
 * Every gauge and counter of docs/observability.md (all but the histograms — a breaker's calls, from
 * `observeCalls`, and its max; an adaptive limiter's round trips, from its `observeCalls` — which an
 * exporter keeps itself), in the order they are published, with the values each takes from
 * the components' `metrics`, their state and their counted transitions.
 *
 * @example
 * ```ts
 * const snapshot = set.read();
 * for (const s of OBSERVED_SERIES) {
 *   const out: ObservedSample[] = [];
 *   for (const entry of snapshot[s.of]) s.samples(entry, out);
 *   publish(`breakwater_${s.name}`, s.type, out);
 * }
 * ```
 */
export const OBSERVED_SERIES: readonly ObservedSeries[] = [
  series({
    name: 'circuitbreaker_state',
    help: 'The states of the circuit breaker: 1 for the current one, 0 for the others',
    type: 'gauge',
    labelNames: ['name', 'state'],
    of: 'breakers',
    samples: ({ c, state }, out) => {
      const name = labelValue(c.name);
      for (const s of BREAKER_STATES) out.push({ labels: { name, state: stateLabel(s) }, value: s === state ? 1 : 0 });
    },
  }),
  series({
    name: 'circuitbreaker_not_permitted_calls_total',
    help: 'Calls the circuit breaker refused (since its current metrics started)',
    type: 'counter',
    labelNames: ['name', 'kind'],
    of: 'breakers',
    samples: ({ c, m }, out) => {
      out.push(kinded(c.name, 'not_permitted', m.numberOfNotPermittedCalls));
    },
  }),
  series({
    name: 'circuitbreaker_buffered_calls',
    help: 'Calls in the sliding window, by outcome',
    type: 'gauge',
    labelNames: ['name', 'kind'],
    of: 'breakers',
    samples: ({ c, m }, out) => {
      out.push(kinded(c.name, 'successful', m.numberOfSuccessfulCalls), kinded(c.name, 'failed', m.numberOfFailedCalls));
    },
  }),
  series({
    name: 'circuitbreaker_slow_calls',
    help: 'Slow calls in the sliding window, by outcome',
    type: 'gauge',
    labelNames: ['name', 'kind'],
    of: 'breakers',
    samples: ({ c, m }, out) => {
      out.push(kinded(c.name, 'successful', m.numberOfSlowSuccessfulCalls), kinded(c.name, 'failed', m.numberOfSlowFailedCalls));
    },
  }),
  series({
    name: 'circuitbreaker_failure_rate',
    help: 'Failure rate of the sliding window in percent (-1 below the minimum number of calls)',
    type: 'gauge',
    labelNames: ['name'],
    of: 'breakers',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.failureRate));
    },
  }),
  series({
    name: 'circuitbreaker_slow_call_rate',
    help: 'Slow-call rate of the sliding window in percent (-1 below the minimum number of calls)',
    type: 'gauge',
    labelNames: ['name'],
    of: 'breakers',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.slowCallRate));
    },
  }),
  series({
    name: 'circuitbreaker_transitions_total',
    help: 'State transitions of the circuit breaker, by the path that caused them',
    type: 'counter',
    labelNames: ['name', 'from', 'to', 'cause'],
    of: 'breakers',
    samples: ({ c, binding }, out) => {
      const name = labelValue(c.name);
      if (binding) for (const t of binding.transitions.values()) out.push({ labels: { name, from: t.from, to: t.to, cause: t.cause }, value: t.count });
    },
  }),
  series({
    name: 'retry_calls_total',
    help: 'Retried calls, by outcome and whether a retry was attempted',
    type: 'counter',
    labelNames: ['name', 'kind'],
    of: 'retries',
    samples: ({ c, m }, out) => {
      out.push(
        kinded(c.name, 'successful_without_retry', m.numberOfSuccessfulCallsWithoutRetryAttempt),
        kinded(c.name, 'successful_with_retry', m.numberOfSuccessfulCallsWithRetryAttempt),
        kinded(c.name, 'failed_without_retry', m.numberOfFailedCallsWithoutRetryAttempt),
        kinded(c.name, 'failed_with_retry', m.numberOfFailedCallsWithRetryAttempt),
      );
    },
  }),
  series({
    name: 'timelimiter_calls_total',
    help: 'Time-limited calls, by outcome',
    type: 'counter',
    labelNames: ['name', 'kind'],
    of: 'timeLimiters',
    samples: ({ c, m }, out) => {
      out.push(
        kinded(c.name, 'successful', m.numberOfSuccessfulCalls),
        kinded(c.name, 'failed', m.numberOfFailedCalls),
        kinded(c.name, 'timeout', m.numberOfTimeouts),
      );
    },
  }),
  series({
    name: 'bulkhead_available_concurrent_calls',
    help: 'Calls the bulkhead would admit now',
    type: 'gauge',
    labelNames: ['name'],
    of: 'bulkheads',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.availableConcurrentCalls));
    },
  }),
  series({
    name: 'bulkhead_max_allowed_concurrent_calls',
    help: "The bulkhead's maximum of concurrent calls",
    type: 'gauge',
    labelNames: ['name'],
    of: 'bulkheads',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.maxAllowedConcurrentCalls));
    },
  }),
  ...POOL.map(([name, help, value]) =>
    series({
      name,
      help,
      type: 'gauge',
      labelNames: ['name'],
      of: 'pools',
      samples: ({ c, m }, out) => {
        out.push(one(c.name, value(m)));
      },
    }),
  ),
  series({
    name: 'ratelimiter_available_permissions',
    help: 'Permissions the rate limiter has left in this cycle (negative when reserved ahead)',
    type: 'gauge',
    labelNames: ['name'],
    of: 'rateLimiters',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.availablePermissions));
    },
  }),
  series({
    name: 'ratelimiter_waiting_threads',
    help: 'Calls waiting for permissions',
    type: 'gauge',
    labelNames: ['name'],
    of: 'rateLimiters',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.numberOfWaitingCalls));
    },
  }),
  ...ADAPTIVE.map(([name, help, type, value]) =>
    series({
      name,
      help,
      type,
      labelNames: ['name'],
      of: 'adaptiveLimiters',
      samples: ({ c, m }, out) => {
        out.push(one(c.name, value(m)));
      },
    }),
  ),
  ...THROTTLE.map(([name, help, value]) =>
    series({
      name,
      help,
      type: 'gauge',
      labelNames: ['name'],
      of: 'throttles',
      samples: ({ c, m }, out) => {
        out.push(one(c.name, value(m)));
      },
    }),
  ),
  series({
    name: 'hedge_calls_total',
    help: 'Hedged calls, by the outcome the caller got',
    type: 'counter',
    labelNames: ['name', 'kind'],
    of: 'hedges',
    samples: ({ c, m }, out) => {
      out.push(kinded(c.name, 'successful', m.numberOfSuccessfulCalls), kinded(c.name, 'failed', m.numberOfFailedCalls));
    },
  }),
  series({
    name: 'hedge_attempts_total',
    help: 'Hedged attempts started beyond the primary (the extra load)',
    type: 'counter',
    labelNames: ['name'],
    of: 'hedges',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.numberOfHedgedAttempts));
    },
  }),
  // One sample per attempt the hedge may start (maxHedgedAttempts + 1, at most 11): a fixed set of
  // label values per hedge, however many calls.
  series({
    name: 'hedge_wins_total',
    help: 'Calls whose outcome came from each attempt (attempt="1": the primary)',
    type: 'counter',
    labelNames: ['name', 'attempt'],
    of: 'hedges',
    samples: ({ c, m }, out) => {
      const name = labelValue(c.name);
      const wins = m.winsByAttempt;
      for (let i = 0; i < wins.length; i++) out.push({ labels: { name, attempt: ATTEMPTS[i] ?? String(i + 1) }, value: wins[i]! });
    },
  }),
  series({
    name: 'hedge_budget_refusals_total',
    help: 'Hedged attempts the retry budget refused',
    type: 'counter',
    labelNames: ['name'],
    of: 'hedges',
    samples: ({ c, m }, out) => {
      out.push(one(c.name, m.numberOfHedgesRefusedByBudget));
    },
  }),
  series({
    name: 'chaos_calls_total',
    help: 'Calls through the chaos layer, injected or not, by its strategy',
    type: 'counter',
    labelNames: ['name', 'strategy', 'injected'],
    of: 'chaos',
    samples: ({ c, m }, out) => {
      const name = labelValue(c.name);
      const strategy = c.strategy;
      out.push(
        { labels: { name, strategy, injected: 'true' }, value: m.numberOfInjectedCalls },
        { labels: { name, strategy, injected: 'false' }, value: m.numberOfCallsNotInjected },
      );
    },
  }),
];
