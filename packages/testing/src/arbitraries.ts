import type { CircuitBreakerConfig } from '@breakwater/circuit-breaker';
import fc from 'fast-check';
import type { ScriptStep } from './script.js';

/**
 * One call's outcome: succeed or fail after a latency.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(outcomeArb({ failureRate: 0.4, maxLatency: 500 }), (o) => o.latency <= 500));
 * ```
 */
export function outcomeArb(options: { failureRate?: number; minLatency?: number; maxLatency?: number } = {}): fc.Arbitrary<ScriptStep> {
  const failureRate = options.failureRate ?? 0.5;
  if (!(failureRate >= 0 && failureRate <= 1)) throw new RangeError(`outcomeArb: failureRate must be in [0, 1], got ${failureRate}`);
  const latency = fc.integer({ min: options.minLatency ?? 0, max: options.maxLatency ?? 1000 });
  // A failure with probability `failureRate`, drawn from 1000 equally likely slots.
  const fails = fc.integer({ min: 0, max: 999 }).map((n) => n < failureRate * 1000);
  return fc.record({ fails, latency }).map(({ fails: f, latency: l }) => ({ outcome: f ? 'error' : 'success', latency: l }) as ScriptStep);
}

/** One call of a traffic pattern: when it starts (ms from the start) and how it ends. */
export interface TrafficCall extends ScriptStep {
  readonly at: number;
}

/** Options of {@link trafficArb}. */
export interface TrafficOptions {
  /** Calls in the pattern (default 1 to 200). */
  readonly minCalls?: number;
  readonly maxCalls?: number;
  /** The shortest and longest gap between two calls, ms (default 0 and 2000). */
  readonly minGap?: number;
  readonly maxGap?: number;
  /** Chance of a failure per call (default 0.5). */
  readonly failureRate?: number;
  readonly maxLatency?: number;
}

/**
 * Traffic: calls in time order with gaps, outcomes and latencies — to replay against a policy.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(trafficArb({ failureRate: 0.05 }), async (traffic) => {
 *   const { transitions } = await replay(traffic, { slidingWindowSize: 20, minimumNumberOfCalls: 20 });
 *   return transitions.length === 0;
 * }));
 * ```
 */
export function trafficArb(options: TrafficOptions = {}): fc.Arbitrary<TrafficCall[]> {
  const call = fc.record({ gap: fc.integer({ min: options.minGap ?? 0, max: options.maxGap ?? 2000 }), step: outcomeArb(options) });
  return fc.array(call, { minLength: options.minCalls ?? 1, maxLength: options.maxCalls ?? 200 }).map((calls) => {
    let at = 0;
    return calls.map(({ gap, step }) => ({ ...step, at: (at += gap) }));
  });
}

/**
 * Valid circuit-breaker window settings, to hold an invariant for every configuration in a range.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(breakerConfigArb(), (config) => new CircuitBreaker('x', config).state === 'CLOSED'));
 * ```
 */
export function breakerConfigArb(): fc.Arbitrary<CircuitBreakerConfig> {
  return fc.record({
    slidingWindowType: fc.constantFrom('COUNT_BASED' as const, 'TIME_BASED' as const),
    slidingWindowSize: fc.integer({ min: 1, max: 100 }),
    minimumNumberOfCalls: fc.integer({ min: 1, max: 100 }),
    failureRateThreshold: fc.integer({ min: 1, max: 100 }),
    slowCallRateThreshold: fc.integer({ min: 1, max: 100 }),
    slowCallDurationThreshold: fc.integer({ min: 1, max: 5000 }),
    permittedNumberOfCallsInHalfOpenState: fc.integer({ min: 1, max: 20 }),
    waitDurationInOpenState: fc.integer({ min: 1, max: 60_000 }),
  });
}
