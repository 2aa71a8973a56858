import type { Registry, RegistryContentType } from 'prom-client';
import { stateLabel, type BreakerBinding, type CallCell } from './breaker-binding.js';
import type { BreakerStateName, CallKind, CircuitBreakerLike, PoolBulkheadLike, RetryLike, TimeLimiterLike, BulkheadLike, RateLimiterLike } from './components.js';
import { pulledCounter, pulledGauge, pulledHistogram, type Sample } from './pulled.js';

/** What one scrape reads: every exported component once, its `metrics` read once. */
export interface Snapshot {
  readonly breakers: readonly { readonly c: CircuitBreakerLike; readonly m: CircuitBreakerLike['metrics']; readonly state: BreakerStateName; readonly binding: BreakerBinding | undefined }[];
  readonly retries: readonly { readonly c: RetryLike; readonly m: RetryLike['metrics'] }[];
  readonly timeLimiters: readonly { readonly c: TimeLimiterLike; readonly m: TimeLimiterLike['metrics'] }[];
  readonly bulkheads: readonly { readonly c: BulkheadLike; readonly m: BulkheadLike['metrics'] }[];
  readonly pools: readonly { readonly c: PoolBulkheadLike; readonly m: PoolBulkheadLike['metrics'] }[];
  readonly rateLimiters: readonly { readonly c: RateLimiterLike; readonly m: RateLimiterLike['metrics'] }[];
}

const STATES: readonly BreakerStateName[] = ['CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'FORCED_OPEN', 'METRICS_ONLY'];
const CALL_KINDS: readonly CallKind[] = ['successful', 'failed', 'ignored'];

/** One gauge or counter: a sample per component of one kind, or several. */
interface Scalar<K extends keyof Snapshot> {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
  readonly labelNames: readonly string[];
  readonly of: K;
  readonly samples: (entry: Snapshot[K][number], out: Sample[]) => void;
}

const scalar = <K extends keyof Snapshot>(s: Scalar<K>): Scalar<keyof Snapshot> => s as unknown as Scalar<keyof Snapshot>;
const one = (name: string, value: number): Sample => ({ labels: { name }, value });
const kinded = (name: string, kind: string, value: number): Sample => ({ labels: { name, kind }, value });

/** Every gauge and counter of SPEC §8, with Resilience4j's Micrometer names (after the prefix). */
export const SCALARS: readonly Scalar<keyof Snapshot>[] = [
  scalar({ name: 'circuitbreaker_state', help: 'The states of the circuit breaker: 1 for the current one, 0 for the others', type: 'gauge', labelNames: ['name', 'state'], of: 'breakers',
    samples: ({ c, state }, out) => { for (const s of STATES) out.push({ labels: { name: c.name, state: stateLabel(s) }, value: s === state ? 1 : 0 }); } }),
  scalar({ name: 'circuitbreaker_not_permitted_calls_total', help: 'Calls the circuit breaker refused (since its current metrics started)', type: 'counter', labelNames: ['name', 'kind'], of: 'breakers',
    samples: ({ c, m }, out) => { out.push(kinded(c.name, 'not_permitted', m.numberOfNotPermittedCalls)); } }),
  scalar({ name: 'circuitbreaker_buffered_calls', help: 'Calls in the sliding window, by outcome', type: 'gauge', labelNames: ['name', 'kind'], of: 'breakers',
    samples: ({ c, m }, out) => { out.push(kinded(c.name, 'successful', m.numberOfSuccessfulCalls), kinded(c.name, 'failed', m.numberOfFailedCalls)); } }),
  scalar({ name: 'circuitbreaker_slow_calls', help: 'Slow calls in the sliding window, by outcome', type: 'gauge', labelNames: ['name', 'kind'], of: 'breakers',
    samples: ({ c, m }, out) => { out.push(kinded(c.name, 'successful', m.numberOfSlowSuccessfulCalls), kinded(c.name, 'failed', m.numberOfSlowFailedCalls)); } }),
  scalar({ name: 'circuitbreaker_failure_rate', help: 'Failure rate of the sliding window in percent (-1 below the minimum number of calls)', type: 'gauge', labelNames: ['name'], of: 'breakers',
    samples: ({ c, m }, out) => { out.push(one(c.name, m.failureRate)); } }),
  scalar({ name: 'circuitbreaker_slow_call_rate', help: 'Slow-call rate of the sliding window in percent (-1 below the minimum number of calls)', type: 'gauge', labelNames: ['name'], of: 'breakers',
    samples: ({ c, m }, out) => { out.push(one(c.name, m.slowCallRate)); } }),
  scalar({ name: 'circuitbreaker_calls_seconds_max', help: 'Longest recorded call since the previous scrape, in seconds', type: 'gauge', labelNames: ['name', 'kind'], of: 'breakers',
    samples: ({ c, binding }, out) => { if (binding?.observed) for (const kind of CALL_KINDS) out.push(kinded(c.name, kind, takeMax(binding.cells[kind]))); } }),
  scalar({ name: 'circuitbreaker_transitions_total', help: 'State transitions of the circuit breaker, by the path that caused them', type: 'counter', labelNames: ['name', 'from', 'to', 'cause'], of: 'breakers',
    samples: ({ c, binding }, out) => { if (binding) for (const t of binding.transitions.values()) out.push({ labels: { name: c.name, from: t.from, to: t.to, cause: t.cause }, value: t.count }); } }),
  scalar({ name: 'retry_calls_total', help: 'Retried calls, by outcome and whether a retry was attempted', type: 'counter', labelNames: ['name', 'kind'], of: 'retries',
    samples: ({ c, m }, out) => {
      out.push(
        kinded(c.name, 'successful_without_retry', m.numberOfSuccessfulCallsWithoutRetryAttempt),
        kinded(c.name, 'successful_with_retry', m.numberOfSuccessfulCallsWithRetryAttempt),
        kinded(c.name, 'failed_without_retry', m.numberOfFailedCallsWithoutRetryAttempt),
        kinded(c.name, 'failed_with_retry', m.numberOfFailedCallsWithRetryAttempt),
      );
    } }),
  scalar({ name: 'timelimiter_calls_total', help: 'Time-limited calls, by outcome', type: 'counter', labelNames: ['name', 'kind'], of: 'timeLimiters',
    samples: ({ c, m }, out) => { out.push(kinded(c.name, 'successful', m.numberOfSuccessfulCalls), kinded(c.name, 'failed', m.numberOfFailedCalls), kinded(c.name, 'timeout', m.numberOfTimeouts)); } }),
  scalar({ name: 'bulkhead_available_concurrent_calls', help: 'Calls the bulkhead would admit now', type: 'gauge', labelNames: ['name'], of: 'bulkheads',
    samples: ({ c, m }, out) => { out.push(one(c.name, m.availableConcurrentCalls)); } }),
  scalar({ name: 'bulkhead_max_allowed_concurrent_calls', help: 'The bulkhead\'s maximum of concurrent calls', type: 'gauge', labelNames: ['name'], of: 'bulkheads',
    samples: ({ c, m }, out) => { out.push(one(c.name, m.maxAllowedConcurrentCalls)); } }),
  ...(
    [
      ['bulkhead_queue_depth', 'Tasks waiting in the pool bulkhead\'s queue', (m) => m.queueDepth],
      ['bulkhead_queue_capacity', 'Capacity of the pool bulkhead\'s queue', (m) => m.queueCapacity],
      ['bulkhead_thread_pool_size', 'Workers of the pool bulkhead now', (m) => m.threadPoolSize],
      ['bulkhead_core_thread_pool_size', 'Core size of the pool bulkhead', (m) => m.coreThreadPoolSize],
      ['bulkhead_max_thread_pool_size', 'Maximum size of the pool bulkhead', (m) => m.maximumThreadPoolSize],
      ['bulkhead_active_thread_count', 'Workers of the pool bulkhead running a task', (m) => m.activeCount],
      ['bulkhead_available_thread_count', 'Workers the pool bulkhead could still run (maximum size − active)', (m) => m.maximumThreadPoolSize - m.activeCount],
    ] as const satisfies readonly (readonly [string, string, (m: PoolBulkheadLike['metrics']) => number])[]
  ).map(([name, help, value]) =>
    scalar({ name, help, type: 'gauge', labelNames: ['name'], of: 'pools', samples: ({ c, m }, out) => { out.push(one(c.name, value(m))); } }),
  ),
  scalar({ name: 'ratelimiter_available_permissions', help: 'Permissions the rate limiter has left in this cycle (negative when reserved ahead)', type: 'gauge', labelNames: ['name'], of: 'rateLimiters',
    samples: ({ c, m }, out) => { out.push(one(c.name, m.availablePermissions)); } }),
  scalar({ name: 'ratelimiter_waiting_threads', help: 'Calls waiting for permissions', type: 'gauge', labelNames: ['name'], of: 'rateLimiters',
    samples: ({ c, m }, out) => { out.push(one(c.name, m.numberOfWaitingCalls)); } }),
];

/** The max since the previous read, then 0 (Micrometer's `_max` decays over a window instead). */
function takeMax(cell: CallCell): number {
  const max = cell.max;
  cell.max = 0;
  return max;
}

/** The samples of the call histogram: `_bucket` (cumulative, `le`), `_sum`, `_count` per breaker and kind. */
function histogramSamples(snapshot: Snapshot, metric: string, bounds: readonly string[]): Sample[] {
  const out: Sample[] = [];
  const bucket = `${metric}_bucket`;
  const sum = `${metric}_sum`;
  const count = `${metric}_count`;
  for (const { c, binding } of snapshot.breakers) {
    if (!binding?.observed) continue;
    for (const kind of CALL_KINDS) {
      const cell = binding.cells[kind];
      let cumulative = 0;
      for (let i = 0; i < cell.counts.length; i++) {
        cumulative += cell.counts[i]!;
        out.push({ labels: { name: c.name, kind, le: bounds[i] ?? '+Inf' }, value: cumulative, metricName: bucket });
      }
      out.push({ labels: { name: c.name, kind }, value: cell.sum, metricName: sum });
      out.push({ labels: { name: c.name, kind }, value: cell.count, metricName: count });
    }
  }
  return out;
}

/** Registers every series of SPEC §8 on `registry`, read from `snapshot()` at each scrape. */
export function registerSeries(registry: Registry<RegistryContentType>, prefix: string, buckets: readonly number[], snapshot: () => Snapshot): void {
  for (const s of SCALARS) {
    const def = { name: `${prefix}_${s.name}`, help: s.help, labelNames: s.labelNames };
    const read = (): Sample[] => {
      const out: Sample[] = [];
      for (const entry of snapshot()[s.of]) s.samples(entry, out);
      return out;
    };
    if (s.type === 'gauge') pulledGauge(def, registry, read);
    else pulledCounter(def, registry, read);
  }
  const name = `${prefix}_circuitbreaker_calls_seconds`;
  const bounds = buckets.map(String);
  pulledHistogram({ name, help: 'Recorded calls of the circuit breaker, by outcome, in seconds', labelNames: ['name', 'kind'] }, registry, buckets, () => histogramSamples(snapshot(), name, bounds));
}
