// How a layer's call ended, as the layer above sees it: a small integer on the engine's hot path
// (frames carry it, tables are indexed by it), named here. Every table indexed by code is built
// from a record keyed by name (`byCode`), so none depends on the order the codes are declared in.
import { BulkheadFullError, RequestNotPermittedError, TimeoutError } from '@breakwater/core';
import { CallNotPermittedError } from '@breakwater/circuit-breaker';
import { SimulatedBackendError, SimulatedFaultError, SimulatedOverloadError, type RequestOutcome } from './engine-types.js';

/** The outcome codes by name (0 … 8, dense: they index arrays). */
export const CODE = {
  /** The call succeeded. */
  ok: 0,
  /** The backend failed (SimulatedBackendError). */
  error: 1,
  /** A time limiter gave up (TimeoutError). */
  timeout: 2,
  /** Refused by a circuit breaker (CallNotPermittedError). */
  rejected: 3,
  /** Refused by a rate limiter (RequestNotPermittedError). */
  limited: 4,
  /** Refused by a bulkhead (BulkheadFullError). */
  full: 5,
  /** The backend was at capacity with its queue full, and failed at once (SimulatedOverloadError, a 503). */
  overloaded: 6,
  /** A hedge above took another attempt's answer and cancelled this one (an AbortError; it never reaches the caller). */
  cancelled: 7,
  /** A chaos layer injected a fault (SimulatedFaultError). */
  fault: 8,
} as const;

/** An outcome code's name. */
export type CodeName = keyof typeof CODE;

const NAMES = (Object.keys(CODE) as CodeName[]).sort((a, b) => CODE[a] - CODE[b]);

/** An array indexed by code, from a record keyed by code name. */
export function byCode<T>(byName: Readonly<Record<CodeName, T>>): T[] {
  return NAMES.map((name) => byName[name]);
}

/** The error each code stands for (what a breaker records, a retry tests, an abort carries), made once per run. */
export function codeErrors(): readonly unknown[] {
  return byCode<unknown>({
    ok: undefined,
    error: new SimulatedBackendError('the simulated backend failed'),
    timeout: new TimeoutError('simulated', 0),
    rejected: new CallNotPermittedError('simulated', 'OPEN'),
    limited: new RequestNotPermittedError('simulated', 0),
    full: new BulkheadFullError('simulated'),
    overloaded: new SimulatedOverloadError('the simulated backend is overloaded (503): every server busy and its queue full'),
    cancelled: new DOMException('another attempt of the hedge answered first', 'AbortError'),
    fault: new SimulatedFaultError('a fault injected by a chaos layer'),
  });
}

/** How a request ended, for the code its outermost layer gave. */
export const REQUEST_OUTCOMES: readonly RequestOutcome[] = byCode<RequestOutcome>({
  ok: 'succeeded',
  error: 'failed',
  timeout: 'failed',
  rejected: 'rejected',
  limited: 'rejected',
  full: 'rejected',
  overloaded: 'failed',
  cancelled: 'failed',
  fault: 'failed',
});
