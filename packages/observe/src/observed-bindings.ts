// What an exporter binds to per instance (a listener held for as long as it exports the
// instance): a breaker's transitions and per-call hook, an adaptive limiter's round trips.
import {
  stateLabel,
  type ObservedAdaptiveCall,
  type ObservedAdaptiveLimiter,
  type ObservedCallKind,
  type ObservedCircuitBreaker,
  type ObservedTransition,
} from './observed.js';

/**
 * What an exporter keeps per breaker for its call histogram: `record` is called by the breaker's
 * `observeCalls` hook for every recorded call (no event object).
 *
 * @example
 * ```ts
 * const recorder: CallRecorder = { record: (kind, elapsedMs) => histogram.record(elapsedMs / 1000, attributes[kind]) };
 * ```
 */
export interface CallRecorder {
  record(kind: ObservedCallKind, elapsedMs: number): void;
}

/**
 * One transition count of a breaker, by its `from`, `to` and `cause` label values.
 *
 * @example
 * ```ts
 * const t: TransitionCount = { from: 'closed', to: 'open', cause: 'failure_rate', count: 1 };
 * ```
 */
export interface TransitionCount {
  readonly from: string;
  readonly to: string;
  readonly cause: string;
  count: number;
}

/**
 * What an exporter holds for one breaker: its transitions counted from `stateTransition` events,
 * and its call recorder (bound once to `observeCalls`; `undefined` when the breaker has no such hook).
 *
 * @example
 * ```ts
 * for (const { binding } of set.read().breakers) for (const t of binding?.transitions.values() ?? []) log(t);
 * ```
 */
export class BreakerObservation<R extends CallRecorder = CallRecorder> {
  /** Transition counts by `from`, `to` and `cause`. */
  readonly transitions = new Map<string, TransitionCount>();
  /** The exporter's recorder, fed by `observeCalls`; `undefined` when the breaker has no hook. */
  readonly calls: R | undefined;
  readonly #off: (() => void)[] = [];

  constructor(
    readonly breaker: ObservedCircuitBreaker,
    recorder?: (breaker: ObservedCircuitBreaker) => R,
  ) {
    if (recorder !== undefined && typeof breaker.observeCalls === 'function') {
      const calls = recorder(breaker);
      this.calls = calls;
      this.#off.push(breaker.observeCalls((kind, elapsedMs) => calls.record(kind, elapsedMs)));
    } else {
      this.calls = undefined;
    }
    this.#off.push(breaker.on('stateTransition', (e: ObservedTransition) => this.#count(e)));
  }

  #count(e: ObservedTransition): void {
    const cause = e.cause ?? 'unknown';
    const key = `${e.from} ${e.to} ${cause}`;
    const found = this.transitions.get(key);
    if (found !== undefined) found.count++;
    else this.transitions.set(key, { from: stateLabel(e.from), to: stateLabel(e.to), cause, count: 1 });
  }

  /** Stops listening to the breaker. */
  dispose(): void {
    for (const off of this.#off.splice(0)) off();
  }
}

/**
 * What an exporter keeps per adaptive limiter for its round-trip-time histogram: `record` is
 * called for each call that fed the limiter's algorithm a sample (from its `callFinished` events).
 *
 * @example
 * ```ts
 * const recorder: RttRecorder = { record: (rttMs) => histogram.record(rttMs / 1000, attributes) };
 * ```
 */
export interface RttRecorder {
  record(rttMs: number): void;
}

/**
 * What an exporter holds for one adaptive limiter: its round-trip recorder, fed by the limiter's
 * `observeCalls` hook when it has one (no event object), else by its `callFinished` events; a
 * call the limiter ignored, which fed no sample, is left out. No listener, and no event built per
 * call, without a recorder.
 *
 * @example
 * ```ts
 * for (const { binding } of set.read().adaptiveLimiters) log(binding?.rtts);
 * ```
 */
export class AdaptiveLimiterObservation<T extends RttRecorder = RttRecorder> {
  /** The exporter's recorder; `undefined` when the exporter keeps no histogram. */
  readonly rtts: T | undefined;
  readonly #off: (() => void) | undefined;

  constructor(
    readonly limiter: ObservedAdaptiveLimiter,
    recorder?: (limiter: ObservedAdaptiveLimiter) => T,
  ) {
    if (recorder === undefined) {
      this.rtts = undefined;
      this.#off = undefined;
      return;
    }
    const rtts = recorder(limiter);
    this.rtts = rtts;
    this.#off =
      typeof limiter.observeCalls === 'function'
        ? limiter.observeCalls((kind, rttMs) => {
            if (kind !== 'ignored') rtts.record(rttMs);
          })
        : limiter.on('callFinished', (e: ObservedAdaptiveCall) => {
            if (!e.ignored) rtts.record(e.rtt);
          });
  }

  /** Stops listening to the limiter. */
  dispose(): void {
    this.#off?.();
  }
}
