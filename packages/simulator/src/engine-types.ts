// The engine's types: what an observer sees of a run, what a run takes and gives.
import type { VirtualClock } from '@breakwater/core';
import type { Tally } from './counts.js';
import type { StateChange, TimeSeries } from './report.js';

/**
 * How a request ended, as its caller saw it.
 *
 * @example
 * ```ts
 * const observer: RunObserver = { requestEnded: (i, outcome: RequestOutcome) => outcome === 'rejected' && refused.push(i) };
 * ```
 */
export type RequestOutcome = 'succeeded' | 'failed' | 'rejected';

/**
 * The error a simulated backend fails with (a phase's `errorRatio`).
 *
 * @example
 * ```ts
 * const isBackendError = (error: unknown) => error instanceof SimulatedBackendError;
 * ```
 */
export class SimulatedBackendError extends Error {
  override name = 'SimulatedBackendError';
}

/**
 * The error a backend with a finite `capacity` fails with at once when `capacity` calls are in
 * service and `queueLimit` wait: an HTTP 503 (`status`). An adaptive limiter in a simulated
 * pipeline counts it as a drop (overload), as a time-out; a breaker records it as a failure, a
 * retry retries it.
 *
 * @example
 * ```ts
 * const isDrop = (error: unknown) => error instanceof SimulatedOverloadError || (error as { status?: number }).status === 503;
 * ```
 */
export class SimulatedOverloadError extends SimulatedBackendError {
  override name = 'SimulatedOverloadError';
  /** The HTTP status a real backend would answer with. */
  readonly status = 503;
}

/**
 * The error a scenario's `chaos: { fault: … }` layer injects instead of calling what is below it
 * (its message is the `fault` given, when it is text). A breaker records it as a failure, a retry
 * retries it, like any error of the backend.
 *
 * @example
 * ```ts
 * const injected = (error: unknown) => error instanceof SimulatedFaultError;
 * ```
 */
export class SimulatedFaultError extends SimulatedBackendError {
  override name = 'SimulatedFaultError';
}

/**
 * The counters of a run as it goes, for an observer.
 *
 * @example
 * ```ts
 * const observer: RunObserver = { stateChanged: (change, view: RunView) => console.log(change.to, 'after', view.requests, 'requests') };
 * ```
 */
export interface RunView {
  readonly clock: VirtualClock;
  /** Requests that have arrived so far. */
  readonly requests: number;
  /** Calls that reached the backend so far. */
  readonly backendCalls: number;
  /** Attempts ended by a time limiter so far. */
  readonly timeouts: number;
}

/**
 * Hooks into a run (all optional; without them the engine does no work for them).
 *
 * @example
 * ```ts
 * let openedAt = -1;
 * runConfiguration(scenario, scenario.pipelines[0]!, {
 *   observer: () => ({ stateChanged: (change, view) => { if (change.to === 'OPEN' && openedAt < 0) openedAt = view.requests; } }),
 * });
 * ```
 */
export interface RunObserver {
  /** A request ended (`index` counts requests from 0 in arrival order). */
  requestEnded?(index: number, outcome: RequestOutcome, view: RunView): void;
  /** The breaker changed state. */
  stateChanged?(change: StateChange, view: RunView): void;
  /** The run is over (nothing left to happen). */
  finished?(view: RunView): void;
}

/** What {@link runEngine} needs besides the traffic and the pipeline. */
export interface EngineOptions {
  readonly clock: VirtualClock;
  /** Draws the backend's outcomes and latencies. */
  readonly random: () => number;
  /** Draws the arrival times (its own stream, so every configuration gets the same arrivals). */
  readonly arrivalRandom: () => number;
  readonly bucketMs: number;
  /** The most buckets of the time series: the last one then runs to the end of the run (see `maxBuckets` in series.ts). */
  readonly maxBuckets: number;
  /** The most events pending at once (default `LIMITS.maxPending`): beyond it the run stops with a SimulationLimitError. */
  readonly maxPending?: number | undefined;
  readonly observer?: RunObserver | undefined;
  /** Called every few thousand events with the simulated time reached. */
  readonly progress?: ((simulatedMs: number) => void) | undefined;
}

/** What a run produced, before it is shaped into a {@link ConfigurationResult}. */
export interface EngineResult {
  readonly tallies: readonly Tally[];
  readonly transitions: readonly StateChange[];
  readonly series: TimeSeries;
  readonly endMs: number;
}
