import fc from 'fast-check';
import type { VirtualClock } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CircuitBreakerConfig } from './config.js';
import { STATES, type CircuitBreakerStateName } from './states.js';
import { BoomError, expectNoLeakedTimers, IgnoredError, trackedClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

type Op =
  | { kind: 'call'; outcome: 'success' | 'failure' | 'slow' | 'slowFailure' | 'ignored' }
  | { kind: 'advance'; ms: number }
  | { kind: 'to'; state: CircuitBreakerStateName }
  | { kind: 'openFor'; ms: number };

const SLOW_MS = 1000;
const BASE = 1_764_619_200_000;

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('call' as const), outcome: fc.constantFrom('success', 'failure', 'slow', 'slowFailure', 'ignored' as const) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 12_000 })) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('to' as const), state: fc.constantFrom(...STATES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('openFor' as const), ms: fc.integer({ min: 0, max: 6000 }) }) },
);

const config: fc.Arbitrary<CircuitBreakerConfig> = fc.record({
  slidingWindowType: fc.constantFrom('COUNT_BASED', 'TIME_BASED' as const),
  slidingWindowSize: fc.integer({ min: 1, max: 6 }),
  minimumNumberOfCalls: fc.integer({ min: 1, max: 6 }),
  permittedNumberOfCallsInHalfOpenState: fc.integer({ min: 1, max: 4 }),
  failureRateThreshold: fc.integer({ min: 20, max: 100 }),
  slowCallRateThreshold: fc.integer({ min: 20, max: 100 }),
  slowCallDurationThreshold: fc.constant(SLOW_MS),
  waitIntervalFunctionInOpenState: fc.integer({ min: 1, max: 3000 }).map((base) => (n: number) => Math.min(base * 2 ** (n - 1), 1e7)),
  automaticTransitionFromOpenToHalfOpenEnabled: fc.boolean(),
  maxWaitDurationInHalfOpenState: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8000 })),
  transitionToStateAfterWaitDuration: fc.constantFrom('OPEN', 'CLOSED' as const),
  ignoreExceptions: fc.constant([IgnoredError]),
});

const MOVES: Record<CircuitBreakerStateName, (b: CircuitBreaker) => void> = {
  CLOSED: (b) => b.transitionToClosedState(),
  OPEN: (b) => b.transitionToOpenState(),
  HALF_OPEN: (b) => b.transitionToHalfOpenState(),
  DISABLED: (b) => b.transitionToDisabledState(),
  FORCED_OPEN: (b) => b.transitionToForcedOpenState(),
  METRICS_ONLY: (b) => b.transitionToMetricsOnlyState(),
};

/** Runs one op and tells what it saw: permitted or not, the state, the metrics. */
function run(breaker: CircuitBreaker, clock: VirtualClock, o: Op): string {
  let seen = '';
  if (o.kind === 'call') {
    const permitted = breaker.tryAcquirePermission();
    seen = permitted ? 'permitted' : 'refused';
    if (permitted) {
      const ms = o.outcome === 'slow' || o.outcome === 'slowFailure' ? SLOW_MS + 1 : 10;
      if (o.outcome === 'success' || o.outcome === 'slow') breaker.onSuccess(ms);
      else breaker.onError(ms, o.outcome === 'ignored' ? new IgnoredError() : new BoomError());
    }
  } else if (o.kind === 'advance') clock.set(clock.now() + o.ms);
  else {
    try {
      // A given wait no longer than the config's shortest (attempt 1's): restore keeps a deadline
      // only up to the config's wait (docs/scale-out.md; restore-hostile.test.ts holds the longer ones).
      if (o.kind === 'openFor') breaker.transitionToOpenStateFor(Math.min(o.ms, breaker.config.waitIntervalFunctionInOpenState!(1)));
      else MOVES[o.state](breaker);
      seen = 'moved';
    } catch (error) {
      seen = (error as Error).name;
    }
  }
  return `${seen} ${breaker.state} ${JSON.stringify(breaker.metrics)}`;
}

function recordEvents(breaker: CircuitBreaker): string[] {
  const events: string[] = [];
  breaker.on('*', (e) => events.push(e.type === 'stateTransition' ? `${e.from}->${e.to} ${e.cause}` : e.type));
  return events;
}

describe('snapshot → JSON → restore → continue is the same as never stopping', () => {
  it('for any calls, clock moves and manual transitions: the same states, metrics and events', () => {
    fc.assert(
      fc.property(
        config,
        fc.array(op, { maxLength: 40 }),
        fc.nat(40),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 3 }),
        (cfg, ops, splitAt, start, shift) => {
          const split = Math.min(splitAt, ops.length);
          // Never stopping.
          const clockA = trackedClock(start);
          const a = new CircuitBreaker('pg', { ...cfg, clock: clockA });
          const eventsA = recordEvents(a);
          const traceA = ops.map((o) => run(a, clockA, o));
          // Stopping after `split` ops: snapshot, through JSON, restored on a new clock at the same
          // time (whose readings are `shift` whole seconds ahead: another process's origin).
          const clockB = trackedClock(start);
          const b = new CircuitBreaker('pg', { ...cfg, clock: clockB });
          const eventsB = recordEvents(b);
          const traceB = ops.slice(0, split).map((o) => run(b, clockB, o));
          const stored = JSON.stringify(b.snapshot({ wallClock: () => BASE + clockB.now() }));
          const clockC = trackedClock(clockB.now() + shift * 1000);
          const c = CircuitBreaker.restore('pg', { ...cfg, clock: clockC }, JSON.parse(stored), { wallClock: () => BASE + clockC.now() - shift * 1000 });
          const eventsC = recordEvents(c);
          expect(c.state).toBe(b.state);
          expect(c.metrics).toEqual(b.metrics);
          traceB.push(...ops.slice(split).map((o) => run(c, clockC, o)));
          expect(traceB).toEqual(traceA);
          expect([...eventsB, ...eventsC]).toEqual(eventsA);
          for (const breaker of [a, b, c]) breaker.reset(); // clears the timers left
        },
      ),
      { numRuns: 200 },
    );
  });
});
