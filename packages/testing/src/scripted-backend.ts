import { onAbort, systemClock, type CallContext, type Clock } from '@breakwater/core';
import { NEVER_ABORTED } from '@breakwater/core/internal';
import { parseScript, type ScriptStep } from './script.js';

/** The error a scripted backend fails with. */
export class ScriptedError extends Error {
  override name = 'ScriptedError';
  constructor(readonly call: number) {
    super(`scripted failure (call ${call})`);
  }
}

/** Options of {@link scriptedBackend}. */
export interface ScriptedBackendOptions<T> {
  /** The clock latencies are taken on (use the one the policies under test use). */
  readonly clock?: Clock;
  /** What happens after the last step: start again (`'repeat'`, the default), or throw a clear error. */
  readonly whenDone?: 'repeat' | 'throw';
  /** The value a success resolves to (default: `'ok #<call>'`). */
  readonly value?: (call: number) => T;
  /** The error a failure rejects with (default: a {@link ScriptedError}). */
  readonly error?: (call: number) => unknown;
}

/** A scripted backend: call it like the function you would decorate. */
export interface ScriptedBackend<T> {
  (ctx?: Partial<CallContext>): Promise<T>;
  /** Calls made so far. */
  readonly calls: number;
  /** Calls started and not yet settled. */
  readonly inFlight: number;
  /** Most calls in flight at once so far. */
  readonly maxInFlight: number;
  /** Calls whose signal aborted them. */
  readonly aborted: number;
}

/**
 * A backend that follows a script of successes, errors, hangs and latencies on a clock — the
 * building block for testing policies and settings deterministically. A step of latency 0
 * settles at once (no timer); any other waits on the clock. A call honours
 * `ctx.signal`: an abort rejects it at once with the signal's reason and clears its timer.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * const backend = scriptedBackend('E S200 H', { clock });
 * const breaker = new CircuitBreaker('pg', { clock });
 * await breaker.execute(backend).catch(() => {}); // fails at once
 * const second = breaker.execute(backend);        // succeeds after 200 ms
 * await clock.advance(200);
 * await second;
 * ```
 */
export function scriptedBackend<T = string>(script: string | readonly ScriptStep[], options: ScriptedBackendOptions<T> = {}): ScriptedBackend<T> {
  const steps = typeof script === 'string' ? parseScript(script) : [...script];
  if (steps.length === 0) throw new RangeError('scriptedBackend: the script has no step');
  const clock = options.clock ?? systemClock;
  const whenDone = options.whenDone ?? 'repeat';
  const value = options.value ?? ((call: number) => `ok #${call}` as T);
  const error = options.error ?? ((call: number) => new ScriptedError(call));
  const stats = { calls: 0, inFlight: 0, maxInFlight: 0, aborted: 0 };

  const backend = ((ctx?: Partial<CallContext>): Promise<T> => {
    const call = ++stats.calls;
    if (call > steps.length && whenDone === 'throw') {
      return Promise.reject(new RangeError(`scriptedBackend: call ${call} is past the end of the script (${steps.length} steps)`));
    }
    const step = steps[(call - 1) % steps.length]!;
    const signal = ctx?.signal ?? NEVER_ABORTED;
    if (signal.aborted) return Promise.reject(signal.reason);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      // One abort listener per signal however many calls share it (core's onAbort).
      const stop = onAbort(signal, () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        stats.aborted++;
        stats.inFlight--;
        reject(signal.reason);
      });
      const done = () => {
        stats.inFlight--;
        stop();
      };
      if (step.outcome === 'hang') return;
      const settle = () => {
        timer = undefined;
        done();
        if (step.outcome === 'success') resolve(value(call));
        else reject(error(call));
      };
      // A step of no latency settles at once, without waiting for the clock to move.
      if (step.latency === 0) settle();
      else timer = clock.setTimeout(settle, step.latency);
    });
  }) as ScriptedBackend<T>;
  for (const key of ['calls', 'inFlight', 'maxInFlight', 'aborted'] as const) {
    Object.defineProperty(backend, key, { get: () => stats[key] });
  }
  return backend;
}
