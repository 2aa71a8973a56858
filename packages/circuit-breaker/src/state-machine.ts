import { IllegalStateTransitionError, type Clock, type EventPublisher } from '@breakwater/core';
import type { ResolvedCircuitBreakerConfig } from './config.js';
import type { CallObserver, CircuitBreakerEvents, TransitionCause } from './events.js';
import { BELOW_MINIMUM, closedMetrics, FAILURE_EXCEEDED, halfOpenMetrics, SLOW_EXCEEDED, type Exceeded, type StateMetrics } from './metrics.js';
import type { Outcome } from './outcome.js';
import {
  isLegalTransition,
  type BreakerState,
  type CircuitBreakerStateName,
  type ClosedState,
  type HalfOpenState,
  type MetricsOnlyState,
  type OpenState,
} from './states.js';

// The state machine of a circuit breaker: which state it is in, whether a call may run
// (permission), what a finished call does to the state (recording), and how each state is built
// and left (transitions). `CircuitBreaker` (circuit-breaker.ts, its calls in calls.ts) owns the
// calls and the public API and asks this machine; recording.ts turns the end of a call into an
// outcome for it; permits.ts gives permits back or uses them up. The three dispatchers (`acquire`, `record`, `#build`) hand each state to its own section below, as
// Polly's CircuitStateController and Resilience4j's state classes are laid out; the states
// themselves are plain objects (states.ts).

/** The states that are not CLOSED (CLOSED is handled first and inline, as the fast path). */
type NotClosed = Exclude<BreakerState, ClosedState>;

export class CircuitStateMachine {
  /** The current state: a fresh object on every transition (self-transitions included). */
  state: BreakerState;
  /**
   * The call observers of `observeCalls`, as one function (the only one, or a fan-out over
   * several), or `undefined` when there is none: the recording path checks this one field.
   */
  observer: CallObserver | undefined = undefined;

  constructor(
    readonly name: string,
    /** `CircuitBreaker '<name>'`: how messages and warnings name the breaker. */
    readonly source: string,
    readonly config: ResolvedCircuitBreakerConfig,
    readonly clock: Clock,
    readonly events: EventPublisher<CircuitBreakerEvents>,
  ) {
    const initial = config.initialState;
    // As in Resilience4j, a breaker created OPEN, HALF_OPEN or FORCED_OPEN is at opening attempt 1.
    const attempt = initial === 'CLOSED' || initial === 'DISABLED' || initial === 'METRICS_ONLY' ? 0 : 1;
    // The metrics an initial OPEN keeps visible: fresh CLOSED ones.
    const metrics = closedMetrics(config, clock.now());
    this.state = initial === 'CLOSED' ? { kind: 'CLOSED', metrics } : this.#build(initial, metrics, attempt);
  }

  // ——— Dispatchers ———

  /**
   * A permission for a call, asked of the current state: `null` (permitted, nothing to give back),
   * the HALF_OPEN state that handed out a trial permit, or `false` (refused, and counted).
   * `CircuitBreaker` answers CLOSED itself before asking (its fast path).
   */
  acquire(): HalfOpenState | null | false {
    const state = this.state;
    switch (state.kind) {
      case 'CLOSED':
      case 'DISABLED':
      case 'METRICS_ONLY':
        return null;
      case 'OPEN':
        return this.#acquireInOpen(state);
      case 'HALF_OPEN':
        return this.#acquireInHalfOpen(state);
      case 'FORCED_OPEN':
        return this.#refuse();
    }
  }

  /** Records one outcome into the current state, at `now` (the clock reading that ended the call). */
  record(outcome: Outcome, now: number): void {
    const state = this.state;
    // CLOSED first and on its own (a small function the JIT inlines): see the CLOSED section.
    if (state.kind === 'CLOSED') {
      const exceeded = state.metrics.record(outcome, now);
      if (exceeded > 0) this.#open(state, exceeded, now);
    } else this.#recordNotClosed(state, outcome, now);
  }

  #recordNotClosed(state: NotClosed, outcome: Outcome, now: number): void {
    switch (state.kind) {
      case 'OPEN':
        return this.#recordInOpen(state, outcome, now);
      case 'HALF_OPEN':
        return this.#recordInHalfOpen(state, outcome, now);
      case 'METRICS_ONLY':
        return this.#recordInMetricsOnly(state, outcome, now);
      case 'DISABLED':
      case 'FORCED_OPEN':
        return; // they record nothing
    }
  }

  /**
   * Moves to `to` (a fresh state object, also for a self-transition); an illegal move throws and
   * changes nothing. The opening attempt is Resilience4j's: OPEN adds one (except for a given
   * wait, `transitionToOpenStateFor/Until`, which keeps it), FORCED_OPEN adds one, HALF_OPEN keeps
   * it, the others go back to 0. `cause` is carried by the `stateTransition` event.
   */
  transition(to: CircuitBreakerStateName, cause: TransitionCause, waitMs?: number): void {
    const from = this.state;
    if (!isLegalTransition(from.kind, to)) throw new IllegalStateTransitionError(this.name, from.kind, to);
    const attempt = from.kind === 'OPEN' || from.kind === 'HALF_OPEN' || from.kind === 'FORCED_OPEN' ? from.attempt : 0;
    const next = (to === 'OPEN' && waitMs === undefined) || to === 'FORCED_OPEN' ? attempt + 1 : to === 'OPEN' || to === 'HALF_OPEN' ? attempt : 0;
    this.#leave(from);
    this.state = this.#build(to, from.metrics, next, waitMs);
    if (from.kind !== to) this.#publishTransition(from.kind, to, cause);
  }

  /** Back to CLOSED with fresh metrics from any state (no legality check); publishes the transition, if any, and `reset`. */
  reset(): void {
    const from = this.state;
    this.#leave(from);
    this.state = this.#build('CLOSED', from.metrics, 0);
    if (from.kind !== 'CLOSED') this.#publishTransition(from.kind, 'CLOSED', 'manual');
    if (this.events.wants('reset')) this.events.emit('reset', {});
  }

  /** The new state object for `to` at opening attempt `attempt`; OPEN keeps `metrics` visible, the others start fresh. */
  #build(to: CircuitBreakerStateName, metrics: StateMetrics, attempt: number, waitMs?: number): BreakerState {
    const fresh = (): StateMetrics => closedMetrics(this.config, this.clock.now());
    switch (to) {
      case 'CLOSED':
        return { kind: 'CLOSED', metrics: fresh() };
      case 'OPEN':
        return this.#buildOpen(metrics, attempt, waitMs);
      case 'HALF_OPEN':
        return this.#buildHalfOpen(attempt);
      case 'METRICS_ONLY':
        return { kind: 'METRICS_ONLY', metrics: fresh(), reported: 0 };
      case 'DISABLED':
        return { kind: 'DISABLED', metrics: fresh() };
      case 'FORCED_OPEN':
        return { kind: 'FORCED_OPEN', attempt, metrics: fresh() };
    }
  }

  // ——— CLOSED ———
  // Permits every call and records it into the configured window (`record` does it inline: the
  // fast path). Once the minimum number of calls is met, a threshold reached opens the breaker.
  // Built with fresh metrics (`#build`).

  // ——— OPEN ———
  // Refuses every call until `clock.now()` is strictly after its deadline; the first call after
  // that moves the breaker to HALF_OPEN and takes a trial permit there (or a timer does the move
  // at the deadline, with `automaticTransitionFromOpenToHalfOpenEnabled`). Keeps the metrics of
  // the state it opened from visible.

  #acquireInOpen(state: OpenState): HalfOpenState | null | false {
    if (!(this.clock.now() > state.deadline)) return this.#refuse();
    this.transition('HALF_OPEN', 'wait_elapsed');
    // A listener of that transition may have moved the breaker on: ask the state now current,
    // except an OPEN again, which refuses (one move per call).
    return this.state.kind === 'OPEN' ? this.#refuse() : this.acquire();
  }

  #recordInOpen(state: OpenState, outcome: Outcome, now: number): void {
    // A call permitted before the breaker opened still counts in the kept metrics.
    state.metrics.record(outcome, now);
  }

  #buildOpen(metrics: StateMetrics, attempt: number, waitMs: number | undefined): OpenState {
    // The wait function is contained (a throw or a bad wait keeps the previous one): nothing here throws from a timer.
    const wait = waitMs ?? this.config.waitInOpenState(attempt);
    return this.openState(metrics, attempt, this.clock.now() + wait, wait);
  }

  /** An OPEN state until the clock time `deadline` (`wait` from now), with its automatic timer if configured; also how a snapshot is restored. */
  openState(metrics: StateMetrics, attempt: number, deadline: number, wait = deadline - this.clock.now()): OpenState {
    const state: OpenState = { kind: 'OPEN', deadline, attempt, metrics, timer: undefined };
    if (this.config.automaticTransitionFromOpenToHalfOpenEnabled) {
      state.timer = this.clock.setTimeout(() => {
        state.timer = undefined;
        if (this.state === state) this.transition('HALF_OPEN', 'wait_elapsed');
      }, wait);
    }
    return state;
  }

  // ——— HALF_OPEN ———
  // Hands out `permittedNumberOfCallsInHalfOpenState` trial permits and records the trial calls
  // into a count window of that size; once `min(minimumNumberOfCalls, permitted)` are recorded it
  // decides: a threshold reached → OPEN, else → CLOSED. With `maxWaitDurationInHalfOpenState`, a
  // timer forces `transitionToStateAfterWaitDuration` after that long. Permits given back or used
  // up by calls: permits.ts.

  #acquireInHalfOpen(state: HalfOpenState): HalfOpenState | false {
    if (state.available <= 0) return this.#refuse();
    state.available--;
    return state;
  }

  #recordInHalfOpen(state: HalfOpenState, outcome: Outcome, now: number): void {
    const exceeded = state.metrics.record(outcome, now);
    if (exceeded === BELOW_MINIMUM) return;
    if (exceeded > 0) this.#open(state, exceeded, now);
    else this.transition('CLOSED', 'half_open_trial');
  }

  #buildHalfOpen(attempt: number): HalfOpenState {
    const config = this.config;
    const permitted = config.permittedNumberOfCallsInHalfOpenState;
    const maxWait = config.maxWaitDurationInHalfOpenState;
    return this.halfOpenState(attempt, halfOpenMetrics(config, permitted), permitted, maxWait > 0 ? this.clock.now() + maxWait : Infinity, maxWait);
  }

  /**
   * A HALF_OPEN state with `available` permits, forced out at the clock time `deadline` (a timer,
   * unless `Infinity` or `maxWaitDurationInHalfOpenState` is off); also how a snapshot is restored.
   */
  halfOpenState(attempt: number, metrics: StateMetrics, available: number, deadline: number, wait = deadline - this.clock.now()): HalfOpenState {
    const config = this.config;
    const state: HalfOpenState = { kind: 'HALF_OPEN', attempt, metrics, available, apiHeld: 0, deadline, timer: undefined };
    if (config.maxWaitDurationInHalfOpenState > 0 && deadline !== Infinity) {
      state.timer = this.clock.setTimeout(() => {
        state.timer = undefined;
        if (this.state === state) this.transition(config.transitionToStateAfterWaitDuration, 'wait_elapsed');
      }, wait);
    }
    return state;
  }

  // ——— METRICS_ONLY ———
  // Permits and records every call like CLOSED, but never transitions on its own: a threshold
  // reached publishes its rate event, once per event type while in this state.

  #recordInMetricsOnly(state: MetricsOnlyState, outcome: Outcome, now: number): void {
    const exceeded = state.metrics.record(outcome, now);
    const fresh = exceeded > 0 ? exceeded & ~state.reported : 0;
    if (fresh === 0) return;
    state.reported |= fresh;
    this.#publishExceeded(fresh, state.metrics, now);
  }

  // ——— DISABLED and FORCED_OPEN ———
  // DISABLED permits every call, FORCED_OPEN none; neither records anything nor publishes call
  // events, and neither leaves but by a manual transition.

  // ——— Shared by the states ———

  /** DISABLED and FORCED_OPEN publish no call events (as in Resilience4j). */
  publishesCalls(): boolean {
    const kind = this.state.kind;
    return kind !== 'DISABLED' && kind !== 'FORCED_OPEN';
  }

  /** A refused call: counted in the current metrics, `callNotPermitted` published. */
  #refuse(): false {
    this.state.metrics.numberOfNotPermittedCalls++;
    if (this.events.wants('callNotPermitted') && this.publishesCalls()) this.events.emit('callNotPermitted', { state: this.state.kind });
    return false;
  }

  /**
   * A verdict reached a threshold in CLOSED or HALF_OPEN: publish the rate events, then open —
   * unless a listener of those events moved the breaker itself (its manual transition wins).
   */
  #open(state: BreakerState, exceeded: Exceeded, now: number): void {
    this.#publishExceeded(exceeded, state.metrics, now);
    // The failure rate names the cause when both rates reached their thresholds.
    if (this.state === state) this.transition('OPEN', exceeded & FAILURE_EXCEEDED ? 'failure_rate' : 'slow_call_rate');
  }

  #publishExceeded(exceeded: Exceeded, metrics: StateMetrics, now: number): void {
    if (exceeded & FAILURE_EXCEEDED && this.events.wants('failureRateExceeded')) {
      this.events.emit('failureRateExceeded', { failureRate: metrics.snapshot(now).failureRate });
    }
    if (exceeded & SLOW_EXCEEDED && this.events.wants('slowCallRateExceeded')) {
      this.events.emit('slowCallRateExceeded', { slowCallRate: metrics.snapshot(now).slowCallRate });
    }
  }

  #publishTransition(from: CircuitBreakerStateName, to: CircuitBreakerStateName, cause: TransitionCause): void {
    if (this.events.wants('stateTransition')) this.events.emit('stateTransition', { from, to, cause });
  }

  /** Replaces the current state by `state` (a restored one) without a transition or an event. */
  adopt(state: BreakerState): void {
    this.#leave(this.state);
    this.state = state;
  }

  /** Clears the timer of the state being left (OPEN's automatic move, HALF_OPEN's maximum wait). */
  #leave(state: BreakerState): void {
    if ((state.kind === 'OPEN' || state.kind === 'HALF_OPEN') && state.timer !== undefined) {
      this.clock.clearTimeout(state.timer);
      state.timer = undefined;
    }
  }
}
