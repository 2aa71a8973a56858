import { CallNotPermittedError, CircuitBreaker, type CircuitBreakerConfig, type CircuitBreakerStateName } from '@breakwater/circuit-breaker';
import { VirtualClock } from '@breakwater/core';
import { scriptedBackend } from './scripted-backend.js';
import type { TrafficCall } from './arbitraries.js';

/** What a breaker did with a replayed traffic pattern. */
export interface ReplayResult {
  /** Every state change, with the clock time it happened at. */
  readonly transitions: readonly { readonly at: number; readonly from: CircuitBreakerStateName; readonly to: CircuitBreakerStateName }[];
  /** Calls that reached the backend and succeeded, failed, or were refused by the breaker. */
  readonly succeeded: number;
  readonly failed: number;
  readonly rejected: number;
  /** The state after the last call settled. */
  readonly finalState: CircuitBreakerStateName;
  /** The breaker, for further questions. */
  readonly breaker: CircuitBreaker;
}

/**
 * Replays traffic against a breaker of the given settings on a {@link VirtualClock} — a day of
 * traffic in milliseconds — and tells what the breaker did. Calls overlap as their latencies say.
 *
 * @example
 * ```ts
 * const result = await replay([{ at: 0, outcome: 'error', latency: 5 }], { minimumNumberOfCalls: 1 });
 * result.finalState; // 'OPEN'
 * ```
 */
export async function replay(traffic: readonly TrafficCall[], config: Omit<CircuitBreakerConfig, 'clock'> = {}): Promise<ReplayResult> {
  const clock = new VirtualClock();
  const breaker = new CircuitBreaker('replay', { ...config, clock });
  const transitions: { at: number; from: CircuitBreakerStateName; to: CircuitBreakerStateName }[] = [];
  breaker.on('stateTransition', (e) => transitions.push({ at: e.at, from: e.from, to: e.to }));
  const backend = scriptedBackend([...traffic], { clock, whenDone: 'throw' });
  const counts = { succeeded: 0, failed: 0, rejected: 0 };
  const calls: Promise<void>[] = [];
  for (const call of traffic) {
    if (call.at > clock.now()) await clock.advanceTo(call.at);
    calls.push(
      breaker.execute(backend).then(
        () => void counts.succeeded++,
        (e: unknown) => void (e instanceof CallNotPermittedError ? counts.rejected++ : counts.failed++),
      ),
    );
  }
  // Let every call still running settle (a hang would never, so it is not waited for).
  const settleBy = traffic.reduce((end, c) => (c.outcome === 'hang' ? end : Math.max(end, c.at + c.latency)), clock.now());
  await clock.advanceTo(Math.max(settleBy, clock.now()));
  await Promise.race([Promise.all(calls), Promise.resolve()]);
  return { transitions, ...counts, finalState: breaker.state, breaker };
}
