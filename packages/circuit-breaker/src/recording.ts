import { ResultRecordedAsFailureError, TimeoutError } from '@breakwater/core';
import { callbackThrew } from '@breakwater/core/internal';
import type { ResolvedCircuitBreakerConfig } from './config.js';
import { Outcome } from './outcome.js';
import { consumePermit, releasePermit, type Permit } from './permits.js';
import type { CircuitStateMachine } from './state-machine.js';

// How the end of a call is recorded, at `now` (the clock reading that ended it: one per call
// end), for a call of `execute` and for one reported through `onSuccess` / `onResult` / `onError`.
// An error is judged by the user's predicates (ignored > recorded > success), a resolved value by
// `recordResult` (never asked about null or undefined, as in Resilience4j); then the call's permit is used up (or given back, for an ignored error), its
// event is published, and its outcome is recorded into the current state (state-machine.ts).
// Slow means longer than `slowCallDurationThreshold` (`>`); a `TimeoutError` is never slow.
// The observers of `observeCalls` see each call as its event does (none in DISABLED or FORCED_OPEN),
// through one field check when there is none.

/**
 * A call that resolved with `value`: a failure if it matches `recordResult` (the caller still
 * receives the value), else a success. As in Resilience4j (`result != null && …`), `recordResult`
 * is never asked about `null` or `undefined`: a call that resolves nothing is a success.
 */
export function recordValue(machine: CircuitStateMachine, elapsed: number, value: unknown, now: number, permit: Permit): void {
  const config = machine.config;
  const recordResult = config.recordResult;
  if (recordResult !== undefined && value != null && resultIsFailure(recordResult, machine.source, value)) {
    recordFailure(machine, elapsed, new ResultRecordedAsFailureError(machine.name, value), elapsed > config.slowCallDurationThreshold, now, permit);
  } else recordSuccess(machine, elapsed, elapsed > config.slowCallDurationThreshold, now, permit);
}

/** A call that failed with `error`: ignored, recorded as a failure, or counted as a success. */
export function recordError(machine: CircuitStateMachine, elapsed: number, error: unknown, now: number, permit: Permit): void {
  const slow = !(error instanceof TimeoutError) && elapsed > machine.config.slowCallDurationThreshold;
  switch (judgeError(machine.config, machine.source, error)) {
    case IGNORED:
      return ignore(machine, error, elapsed, permit);
    case RECORDED:
      return recordFailure(machine, elapsed, error, slow, now, permit);
    case NOT_RECORDED:
      return recordSuccess(machine, elapsed, slow, now, permit);
  }
}

/** A call that counts as a success. */
export function recordSuccess(machine: CircuitStateMachine, elapsed: number, slow: boolean, now: number, permit: Permit): void {
  consumePermit(machine.state, permit);
  if (machine.events.wants('success') && machine.publishesCalls()) machine.events.emit('success', { elapsed });
  if (machine.observer !== undefined && machine.publishesCalls()) machine.observer('successful', elapsed);
  machine.record(slow ? Outcome.SLOW_SUCCESS : Outcome.SUCCESS, now);
}

function recordFailure(machine: CircuitStateMachine, elapsed: number, error: unknown, slow: boolean, now: number, permit: Permit): void {
  consumePermit(machine.state, permit);
  if (machine.events.wants('error') && machine.publishesCalls()) machine.events.emit('error', { error, elapsed });
  if (machine.observer !== undefined && machine.publishesCalls()) machine.observer('failed', elapsed);
  machine.record(slow ? Outcome.SLOW_ERROR : Outcome.ERROR, now);
}

/** A call not recorded (an ignored error, or its caller aborted): its permit is given back, nothing is counted. */
export function ignore(machine: CircuitStateMachine, error: unknown, elapsed: number, permit: Permit): void {
  releasePermit(machine.state, permit);
  if (machine.events.wants('ignoredError') && machine.publishesCalls()) machine.events.emit('ignoredError', { error, elapsed });
  if (machine.observer !== undefined && machine.publishesCalls()) machine.observer('ignored', elapsed);
}

// The user's predicates, contained: one that throws has its error reported once
// (`process.emitWarning`) and the call is recorded as an error (contract: docs/conventions.md).

const CALLBACK_FALLBACK = 'the call is recorded as an error';

/** How the predicates judge an error: counted as a success, recorded as a failure, or ignored. */
const NOT_RECORDED = 0;
const RECORDED = 1;
const IGNORED = 2;

/** Ignored > recorded > success, through `ignoreException(s)` then `recordException(s)`. */
function judgeError(config: ResolvedCircuitBreakerConfig, source: string, error: unknown): typeof NOT_RECORDED | typeof RECORDED | typeof IGNORED {
  try {
    if (config.isIgnored(error)) return IGNORED;
  } catch (thrown) {
    const option = config.ignoreException !== undefined ? 'ignoreException' : 'ignoreExceptions';
    callbackThrew(source, option, config.ignoreException ?? config.isIgnored, thrown, CALLBACK_FALLBACK);
    return RECORDED;
  }
  try {
    return config.isRecorded(error) ? RECORDED : NOT_RECORDED;
  } catch (thrown) {
    const option = config.recordException !== undefined ? 'recordException' : 'recordExceptions';
    callbackThrew(source, option, config.recordException ?? config.isRecorded, thrown, CALLBACK_FALLBACK);
    return RECORDED;
  }
}

/** `recordResult(value)`: whether a resolved value is recorded as a failure (a throw says yes). */
function resultIsFailure(recordResult: (value: unknown) => boolean, source: string, value: unknown): boolean {
  try {
    return Boolean(recordResult(value));
  } catch (thrown) {
    callbackThrew(source, 'recordResult', recordResult, thrown, CALLBACK_FALLBACK);
    return true;
  }
}
