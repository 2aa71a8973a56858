import fc from 'fast-check';
import { VirtualClock } from '@breakwater/core';
import { flush } from '@breakwater/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import { BoomError, IgnoredError } from '../test/test-support.js';

afterEach(() => vi.restoreAllMocks());

/** An error the `recordException` predicate of the test throws on (a contained callback: recorded as an ERROR). */
class PoisonError extends Error {}

type ExecuteOutcome = 'success' | 'failure' | 'ignored' | 'abort' | 'abortThenSucceed' | 'hostile' | 'poison';
type UserPattern = 'acquireRecord' | 'acquireFail' | 'acquireReleaseTwice' | 'acquireIgnored' | 'releaseWithoutPermit';
type Op = { kind: 'execute'; outcome: ExecuteOutcome } | { kind: 'user'; pattern: UserPattern };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('execute' as const),
      outcome: fc.constantFrom<ExecuteOutcome>('success', 'failure', 'ignored', 'abort', 'abortThenSucceed', 'hostile', 'poison'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      pattern: fc.constantFrom<UserPattern>('acquireRecord', 'acquireFail', 'acquireReleaseTwice', 'acquireIgnored', 'releaseWithoutPermit'),
    }),
  },
);

/**
 * The half-open permits as a model: `permitted` permits; a permit is taken by a call that starts
 * (execute or the public tryAcquirePermission) while some are left, comes back when its call is not
 * recorded (ignored, aborted) or is released by hand — a hand release only for a permit taken by
 * hand and neither recorded nor released yet — and is used up when its call is recorded. The first
 * `permitted` recorded calls decide: OPEN at a failure rate >= 50 %, else CLOSED. (The clock never
 * moves: OPEN stays OPEN.)
 */
class Model {
  state: 'HALF_OPEN' | 'OPEN' | 'CLOSED' = 'HALF_OPEN';
  available: number;
  userHeld = 0;
  outcomes: boolean[] = []; // recorded in the current state's window: failed?

  constructor(readonly permitted: number) {
    this.available = permitted;
  }

  /** A call starts: permitted? (and the permit it took, if any). */
  acquire(): { permitted: boolean; permit: boolean } {
    if (this.state === 'CLOSED') return { permitted: true, permit: false };
    if (this.state === 'OPEN' || this.available === 0) return { permitted: false, permit: false };
    this.available--;
    return { permitted: true, permit: true };
  }

  /** A call that held a permit of this HALF_OPEN is not recorded: its permit comes back. */
  giveBack(permit: boolean): void {
    if (permit && this.state === 'HALF_OPEN') this.available++;
  }

  userRelease(): void {
    if (this.state === 'HALF_OPEN' && this.userHeld > 0) {
      this.userHeld--;
      this.available++;
    }
  }

  /**
   * A call is recorded. HALF_OPEN decides on its first `permitted` calls; CLOSED (a fresh window of
   * 100 calls, more than a run makes) opens once `permitted` calls are in it and half of them failed.
   */
  record(failed: boolean): void {
    if (this.state === 'OPEN') return;
    this.outcomes.push(failed);
    if (this.outcomes.length < this.permitted) return;
    const rate = (this.outcomes.filter(Boolean).length * 100) / this.outcomes.length;
    if (rate >= 50) this.state = 'OPEN';
    else if (this.state === 'HALF_OPEN') {
      this.state = 'CLOSED';
      this.outcomes = [];
    }
  }
}

describe('half-open permits against a model, under any interleaving', () => {
  it('hands out, gives back and uses up exactly the permits the model does (execute, hand acquire/release, aborts, hostile thenables, throwing predicates)', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 4 }), fc.array(op, { minLength: 1, maxLength: 14 }), async (s, permitted, ops) => {
        const clock = new VirtualClock();
        const breaker = new CircuitBreaker('permits', {
          permittedNumberOfCallsInHalfOpenState: permitted,
          minimumNumberOfCalls: permitted,
          failureRateThreshold: 50,
          ignoreExceptions: [IgnoredError],
          recordException: (e) => {
            if (e instanceof PoisonError) throw new TypeError('predicate bug');
            return true;
          },
          clock,
        });
        breaker.transitionToOpenState();
        breaker.transitionToHalfOpenState();
        const model = new Model(permitted);
        const transitions: string[] = [];
        const mismatches: string[] = []; // a listener's throw would be swallowed (and reported): collected instead
        breaker.on('stateTransition', (e) => {
          transitions.push(e.to);
          if (e.to !== model.state) mismatches.push(`breaker went to ${e.to}, model is ${model.state}`);
        });
        // The model follows what the breaker records, in the order it records it. An error not
        // recorded tells whose it was: a call of execute holding a permit or not, or a hand call.
        const owner = new WeakMap<object, 'permit' | 'none' | 'hand'>();
        breaker.on('success', () => model.record(false));
        breaker.on('error', () => model.record(true));
        breaker.on('ignoredError', (e) => {
          const who = owner.get(e.error as object);
          if (who === undefined) mismatches.push('an ignoredError of no known call');
          else if (who !== 'hand') model.giveBack(who === 'permit');
        });

        const runExecute = (outcome: ExecuteOutcome): Promise<unknown> => {
          const controller = new AbortController();
          let ran = false;
          let held = false;
          const expected = model.acquire();
          const fail = (error: Error): never => {
            owner.set(error, held ? 'permit' : 'none');
            throw error;
          };
          const call = breaker.execute(
            (ctx) => {
              ran = true;
              const gate = s.schedule(Promise.resolve(), `settle ${outcome}`);
              if (outcome === 'hostile') {
                // A native promise handed to the breaker as it is, whose own then calls both handlers.
                const p = gate.then(() => 'twice');
                Object.defineProperty(p, 'then', {
                  value: (resolve: (v: unknown) => void, reject: (e: unknown) => void) =>
                    Promise.prototype.then.call(gate, () => {
                      resolve('twice');
                      reject(new BoomError());
                    }),
                });
                return p;
              }
              return gate.then(() => {
                switch (outcome) {
                  case 'success':
                    return 'ok';
                  case 'failure':
                    return fail(new BoomError());
                  case 'ignored':
                    return fail(new IgnoredError());
                  case 'poison':
                    return fail(new PoisonError());
                  case 'abort':
                    controller.abort(new Error('left'));
                    return fail(ctx.signal.reason as Error);
                  case 'abortThenSucceed':
                    controller.abort(new Error('left'));
                    return 'late';
                }
              });
            },
            { signal: controller.signal },
          );
          if (ran !== expected.permitted)
            mismatches.push(`execute: breaker ${ran ? 'ran' : 'refused'} the call, model ${expected.permitted ? 'permits' : 'refuses'} it`);
          held = expected.permit;
          return call.catch(() => 'rejected');
        };

        const runUser = async (pattern: UserPattern): Promise<void> => {
          if (pattern === 'releaseWithoutPermit') {
            breaker.releasePermission();
            model.userRelease();
            return;
          }
          const expected = model.acquire();
          if (breaker.tryAcquirePermission() !== expected.permitted)
            mismatches.push(`tryAcquirePermission: model ${expected.permitted ? 'permits' : 'refuses'}`);
          if (!expected.permitted) return;
          if (expected.permit) model.userHeld++;
          await s.schedule(Promise.resolve(), `user ${pattern}`);
          const wasHeld = model.userHeld > 0 && model.state === 'HALF_OPEN';
          switch (pattern) {
            case 'acquireRecord':
              if (wasHeld) model.userHeld--;
              breaker.onSuccess(0);
              return;
            case 'acquireFail':
              if (wasHeld) model.userHeld--;
              breaker.onError(0, new BoomError());
              return;
            case 'acquireIgnored': {
              // A hand-recorded ignored error releases the hand permit (the model's userRelease).
              const error = new IgnoredError();
              owner.set(error, 'hand');
              breaker.onError(0, error);
              model.userRelease();
              return;
            }
            case 'acquireReleaseTwice':
              breaker.releasePermission();
              model.userRelease();
              await s.schedule(Promise.resolve(), 'second release');
              breaker.releasePermission();
              model.userRelease();
              return;
          }
        };

        const runs = ops.map((o, i) =>
          s.schedule(Promise.resolve(i), `start ${i}`).then(() => (o.kind === 'execute' ? runExecute(o.outcome) : runUser(o.pattern))),
        );
        await s.waitAll();
        await Promise.all(runs);
        await flush();

        expect(mismatches).toEqual([]);
        expect(breaker.state).toBe(model.state);
        expect(transitions.length).toBeLessThanOrEqual(2); // HALF_OPEN → CLOSED → OPEN at most
        if (model.state === 'HALF_OPEN') {
          // Every call has ended: no trial call is out (the permits neither left nor recorded; a
          // release by hand with no permit of its own gives one back all the same, so the count
          // never goes below 0). Exactly the model's permits are left: none lost, none made up.
          const out = () => Math.max(0, permitted - model.outcomes.length - model.available);
          expect(breaker.trialCallsInFlight).toBe(out());
          let left = 0;
          while (breaker.tryAcquirePermission()) left++;
          expect(left).toBe(model.available);
          model.available = 0;
          expect(breaker.trialCallsInFlight).toBe(out());
        } else expect(breaker.trialCallsInFlight).toBe(0);
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
