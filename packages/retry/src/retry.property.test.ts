import { getEventListeners } from 'node:events';
import { CallNotPermittedError, MaxRetriesExceededError, VirtualClock, type CallContext } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Retry, RetryBudget, type RetryConfig } from './index.js';

class Fatal extends Error {}

type ErrorKind = 'error' | 'typeError' | 'string' | 'undefined' | 'fatal' | 'notPermitted';
type StepKind = 'ok' | 'busy' | 'throw' | ErrorKind;
interface Step {
  readonly kind: StepKind;
  /** How long the attempt runs before it settles (a sync throw takes none). */
  readonly duration: number;
}
interface Scenario {
  readonly maxAttempts: number;
  /** Constant wait (waitDuration) or one wait per failed attempt (intervalFunction). */
  readonly waits: number | readonly number[];
  readonly retryBusy: boolean;
  readonly failAfterMaxAttempts: boolean;
  readonly retryCallNotPermitted: boolean;
  readonly steps: readonly Step[];
  /** When the caller aborts (its timer is set before the call starts); none if undefined. */
  readonly abortAt: number | undefined;
  /** A budget that allows exactly this many retries (its floor; ratio 0); none if undefined. */
  readonly budgetRetries: number | undefined;
}

/** What is thrown for step `i` of kind `kind`: a distinct value per step, so identity can be checked. */
function thrownFor(kind: ErrorKind | 'throw', i: number): unknown {
  switch (kind) {
    case 'error':
    case 'throw':
      return new Error(`step ${i}`);
    case 'typeError':
      return new TypeError(`step ${i}`);
    case 'string':
      return `step ${i}`;
    case 'undefined':
      return undefined;
    case 'fatal':
      return new Fatal(`step ${i}`);
    case 'notPermitted':
      return new CallNotPermittedError(`breaker ${i}`, 'OPEN');
  }
}

type Ending =
  | { kind: 'value'; value: unknown }
  // the error thrown by that step, as it is; or, for a breaker's refusal after another error
  // (the step `behind`), a copy of the refusal whose cause is that error
  | { kind: 'error'; step: number; behind?: number | undefined }
  | { kind: 'maxRetries'; attempts: number; lastResult: unknown }
  | { kind: 'aborted' };

interface Expected {
  ending: Ending;
  /** Clock times at which attempts started. */
  starts: number[];
  events: { type: string; attempt?: number; waitMs?: number; attempts?: number }[];
  retried: boolean;
  succeeded: boolean;
}

/** The reference model: Resilience4j's rules, written out plainly on a timeline. */
function model(s: Scenario): Expected {
  const starts: number[] = [];
  const events: Expected['events'] = [];
  const T = s.abortAt ?? Infinity;
  let t = 0;
  /** The step of the latest attempt that failed with an error other than a refusal. */
  let behind: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const index = Math.min(attempt - 1, s.steps.length - 1);
    const step = s.steps[index]!;
    if (attempt > 1 && T <= t) return aborted(attempt - 1);
    starts.push(t);
    const duration = step.kind === 'throw' ? 0 : step.duration;
    if (duration > 0 && T <= t + duration) return aborted(attempt);
    t += duration;
    const isResult = step.kind === 'ok' || step.kind === 'busy';
    if (isResult && !(step.kind === 'busy' && s.retryBusy)) {
      events.push({ type: 'success', attempts: attempt });
      return { ending: { kind: 'value', value: step.kind }, starts, events, retried: attempt > 1, succeeded: true };
    }
    const retryable = isResult || (step.kind !== 'fatal' && (step.kind !== 'notPermitted' || s.retryCallNotPermitted));
    const thrown: Ending = { kind: 'error', step: index, behind: step.kind === 'notPermitted' ? behind : undefined };
    if (!isResult && step.kind !== 'notPermitted') behind = index;
    if (!retryable) {
      events.push({ type: 'ignoredError' });
      return { ending: thrown, starts, events, retried: attempt > 1, succeeded: false };
    }
    if (attempt === s.maxAttempts || (s.budgetRetries !== undefined && attempt - 1 >= s.budgetRetries)) {
      events.push({ type: 'error', attempts: attempt });
      const ending: Ending = !isResult
        ? thrown
        : s.failAfterMaxAttempts
          ? { kind: 'maxRetries', attempts: attempt, lastResult: step.kind }
          : { kind: 'value', value: step.kind };
      return { ending, starts, events, retried: attempt > 1, succeeded: false };
    }
    const waitMs = typeof s.waits === 'number' ? s.waits : s.waits[attempt - 1]!;
    events.push({ type: 'retry', attempt, waitMs });
    t += waitMs;
  }

  function aborted(attempts: number): Expected {
    events.push({ type: 'error', attempts });
    return { ending: { kind: 'aborted' }, starts, events, retried: attempts > 1, succeeded: false };
  }
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<StepKind>('ok', 'busy', 'throw', 'error', 'typeError', 'string', 'undefined', 'fatal', 'notPermitted', 'error', 'error'),
  duration: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
});

const scenarioArb = (withAbort: boolean): fc.Arbitrary<Scenario> =>
  fc.integer({ min: 1, max: 6 }).chain((maxAttempts) =>
    fc.record({
      maxAttempts: fc.constant(maxAttempts),
      waits: fc.oneof(
        fc.integer({ min: 0, max: 500 }),
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })), { minLength: maxAttempts, maxLength: maxAttempts }),
      ),
      retryBusy: fc.boolean(),
      failAfterMaxAttempts: fc.boolean(),
      retryCallNotPermitted: fc.boolean(),
      steps: fc.array(stepArb, { minLength: 1, maxLength: 7 }),
      abortAt: withAbort ? fc.integer({ min: 1, max: 2500 }) : fc.constant(undefined),
      budgetRetries: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    }),
  );

async function play(s: Scenario) {
  const clock = new VirtualClock();
  const caller = new AbortController();
  if (s.abortAt !== undefined) clock.setTimeout(() => caller.abort(new Error('caller aborted')), s.abortAt);
  const config: RetryConfig = {
    clock,
    maxAttempts: s.maxAttempts,
    ignoreExceptions: [Fatal],
    retryCallNotPermitted: s.retryCallNotPermitted,
    failAfterMaxAttempts: s.failAfterMaxAttempts,
    // The whole call takes less than the budget's ttl, so its floor is all there is.
    ...(s.budgetRetries !== undefined ? { budget: new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: s.budgetRetries / 10, ttl: 10_000 }) } : {}),
    ...(s.retryBusy ? { retryOnResult: (v: unknown) => v === 'busy' } : {}),
    ...(typeof s.waits === 'number' ? { waitDuration: s.waits } : { intervalFunction: (attempt: number) => (s.waits as readonly number[])[attempt - 1]! }),
  };
  const retry = new Retry('model', config);
  const events: Expected['events'] = [];
  retry.on('*', (e) => {
    if (e.type === 'retry') events.push({ type: 'retry', attempt: e.attempt, waitMs: e.waitMs });
    else if (e.type === 'ignoredError') events.push({ type: 'ignoredError' });
    else events.push({ type: e.type, attempts: e.attempts });
  });
  const starts: number[] = [];
  const thrown: unknown[] = [];
  const fn = (ctx: CallContext): unknown => {
    const index = Math.min(starts.length, s.steps.length - 1);
    const step = s.steps[index]!;
    starts.push(clock.now());
    expect(ctx.attempt).toBe(starts.length);
    if (step.kind === 'throw') throw (thrown[index] = thrownFor('throw', index));
    const settle = (resolve: (v: unknown) => void, reject: (e: unknown) => void): void => {
      if (step.kind === 'ok' || step.kind === 'busy') resolve(step.kind);
      else reject((thrown[index] = thrownFor(step.kind, index)));
    };
    if (step.duration === 0) return new Promise(settle);
    return new Promise((resolve, reject) => clock.setTimeout(() => settle(resolve, reject), step.duration));
  };
  const outcome = track(retry.execute(fn, { signal: caller.signal }));
  await clock.runAll();
  return { clock, caller, retry, events, starts, thrown, outcome };
}

function checkAgainstModel(s: Scenario, run: Awaited<ReturnType<typeof play>>): void {
  const expected = model(s);
  const { outcome, starts, events, retry, clock, caller, thrown } = run;
  expect(outcome.settled).toBe(true);
  expect(starts).toEqual(expected.starts);
  expect(events).toEqual(expected.events);
  const ending = expected.ending;
  switch (ending.kind) {
    case 'value':
      expect(outcome).toEqual({ state: 'fulfilled', settled: true, value: ending.value });
      break;
    case 'error':
      expect('error' in outcome).toBe(true);
      if (ending.behind === undefined) expect(outcome.error).toBe(thrown[ending.step]);
      else {
        const refusal = thrown[ending.step] as CallNotPermittedError;
        const error = outcome.error as CallNotPermittedError;
        expect(error).not.toBe(refusal);
        expect(error).toBeInstanceOf(CallNotPermittedError);
        expect([error.message, error.circuitBreakerName, error.stack]).toEqual([refusal.message, refusal.circuitBreakerName, refusal.stack]);
        expect(error.cause).toBe(thrown[ending.behind]);
        expect('cause' in refusal).toBe(false);
      }
      break;
    case 'maxRetries': {
      const error = outcome.error as MaxRetriesExceededError;
      expect(error).toBeInstanceOf(MaxRetriesExceededError);
      expect([error.retryName, error.attempts, error.lastResult]).toEqual(['model', ending.attempts, ending.lastResult]);
      break;
    }
    case 'aborted':
      expect(outcome.error).toBe(caller.signal.reason);
      break;
  }
  const { succeeded, retried } = expected;
  expect(retry.metrics).toEqual({
    numberOfSuccessfulCallsWithoutRetryAttempt: succeeded && !retried ? 1 : 0,
    numberOfSuccessfulCallsWithRetryAttempt: succeeded && retried ? 1 : 0,
    numberOfFailedCallsWithoutRetryAttempt: !succeeded && !retried ? 1 : 0,
    numberOfFailedCallsWithRetryAttempt: !succeeded && retried ? 1 : 0,
  });
  expect(clock.pendingTimers).toBe(0);
  expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
}

describe('Retry against a reference model', () => {
  it('attempts, waits (from the clock), events, final outcome and metrics match the model for any script and config', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb(false), async (s) => {
        checkAgainstModel(s, await play(s));
      }),
      { numRuns: 250 },
    );
  });

  it('an abort at any time ends the call promptly with its reason, and no attempt starts after it', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb(true), async (s) => {
        const run = await play(s);
        checkAgainstModel(s, run);
        if (run.caller.signal.aborted && run.outcome.error === run.caller.signal.reason) {
          expect(run.starts.every((t) => t < s.abortAt!)).toBe(true);
        }
      }),
      { numRuns: 250 },
    );
  });

  it('an abort ends the call within the same clock instant (no timer has to fire after it)', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb(true), async (s) => {
        const clock = new VirtualClock();
        const caller = new AbortController();
        const retry = new Retry('prompt', { clock, maxAttempts: s.maxAttempts, waitDuration: 1000 });
        const outcome = track(
          retry.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(new Error('slow failure')), 300)), { signal: caller.signal }),
        );
        await clock.advance(s.abortAt!);
        if (outcome.settled) return; // the call had already ended before the abort
        caller.abort('now');
        await clock.advance(0);
        expect(outcome).toEqual({ state: 'rejected', settled: true, error: 'now' });
        expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
        await clock.runAll();
      }),
      { numRuns: 100 },
    );
  });
});
