import { callbackThrew } from '@breakwater/core';
import type { ResolvedCircuitBreakerConfig } from './config.js';

// How the user's predicates judge the end of a call, contained: a predicate that throws has its
// error reported once (`process.emitWarning`) and the call is recorded as an error (SPEC §0).

/** What a reported callback error leads to. */
const CALLBACK_FALLBACK = 'the call is recorded as an error';

/** The error counts as a success: neither ignored nor recorded. */
export const NOT_RECORDED = 0;
/** The error is recorded as a failure. */
export const RECORDED = 1;
/** The error is ignored: the permit is given back, nothing is counted. */
export const IGNORED = 2;
/** How an error is recorded, once the predicates have judged it. */
export type ErrorVerdict = typeof NOT_RECORDED | typeof RECORDED | typeof IGNORED;

/** Ignored > recorded > success, through `ignoreException(s)` then `recordException(s)`. */
export function judgeError(config: ResolvedCircuitBreakerConfig, source: string, error: unknown): ErrorVerdict {
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
export function resultIsFailure(recordResult: (value: unknown) => boolean, source: string, value: unknown): boolean {
  try {
    return Boolean(recordResult(value));
  } catch (thrown) {
    callbackThrew(source, 'recordResult', recordResult, thrown, CALLBACK_FALLBACK);
    return true;
  }
}
