import { EventPublisher } from '@breakwater/core';
import type { AnyEventOf, CallContext, Clock, Duration, EventOf, ExecuteOptions, Listener, Observable, Policy, PolicyFn } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';
import { resolveCircuitBreakerConfig, type CircuitBreakerConfig, type ResolvedCircuitBreakerConfig } from './config.js';
import { measuredDuration, openWaitFor, openWaitUntil } from './arguments.js';
import { BreakerCalls } from './calls.js';
import { CallObservers } from './call-observers.js';
import { EVENT_TYPES, manualCause, type CallObserver, type CircuitBreakerEvents, type TransitionOptions } from './events.js';
import type { CircuitBreakerMetrics } from './metrics.js';
import { recordError, recordSuccess, recordValue } from './recording.js';
import { API_PERMIT, releasePermit } from './permits.js';
import { CircuitStateMachine } from './state-machine.js';
import type { CircuitBreakerStateName } from './states.js';
import { restoreInto, type RestoreOptions } from './restore.js';
import { readWallClock, takeSnapshot, type CircuitBreakerSnapshot, type SnapshotOptions } from './snapshot.js';

// The public API. The call plumbing of `execute` (take a permission, run `fn`, time it, record
// how it ended) is calls.ts's; the states (permission, what a recorded call does, each state's
// making) are the state machine's (state-machine.ts); how the end of a call is judged and recorded
// is recording.ts's; snapshot and restore are snapshot.ts's and restore.ts's.

/**
 * A circuit breaker with Resilience4j's semantics: COUNT_BASED or TIME_BASED sliding windows,
 * failure and slow-call rates judged at `>=` once the minimum number of calls is recorded,
 * OPEN → HALF_OPEN on the first call after the wait (or by a timer), half-open trial permits,
 * and the special states DISABLED, FORCED_OPEN and METRICS_ONLY.
 *
 * @example
 * ```ts
 * const breaker = new CircuitBreaker('pg', { slidingWindowSize: 20, minimumNumberOfCalls: 10, waitDurationInOpenState: '10s' });
 * breaker.on('stateTransition', (e) => console.log(`${e.from} → ${e.to}`));
 * const receipt = await breaker.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }));
 * ```
 */
export class CircuitBreaker implements Policy, Observable<CircuitBreakerEvents> {
  readonly kind = 'circuitBreaker' as const;
  /** The options as resolved at construction (every option, defaults applied, durations in ms). */
  readonly config: ResolvedCircuitBreakerConfig;
  readonly #clock: Clock;
  readonly #events: EventPublisher<CircuitBreakerEvents>;
  /** `CircuitBreaker '<name>'`: how messages and warnings name this breaker. */
  readonly #source: string;
  readonly #machine: CircuitStateMachine;
  readonly #observers: CallObservers;
  readonly #calls: BreakerCalls;

  /** Same as `new CircuitBreaker(name, config)`. */
  static of(name: string, config?: CircuitBreakerConfig): CircuitBreaker {
    return new CircuitBreaker(name, config);
  }

  /**
   * A new breaker, `new CircuitBreaker(name, config)`, that resumes from `snapshot` (taken by
   * {@link snapshot}, possibly in another process and read back from a store as JSON): its state,
   * opening attempt, deadlines (time spent in the store counts) and metrics. The snapshot is
   * checked (a bad field is a `TypeError` or `RangeError` naming it); one whose window does not
   * fit `config` is refused, unless `{ stateOnly: true }` asks for the state and attempt alone.
   * What no breaker with `config` could have left is repaired as that breaker would have: a
   * deadline is kept only up to the config's wait from when the snapshot was taken, and a
   * HALF_OPEN whose recorded trials already decide becomes the OPEN or CLOSED they decide.
   * Publishes nothing; `config.initialState` is overridden by the snapshot's state.
   *
   * @example
   * ```ts
   * const stored = await redis.get('breaker:pg');
   * const breaker = stored ? CircuitBreaker.restore('pg', config, JSON.parse(stored)) : new CircuitBreaker('pg', config);
   * ```
   */
  static restore(name: string, config: CircuitBreakerConfig | undefined, snapshot: unknown, options?: RestoreOptions): CircuitBreaker {
    const breaker = new CircuitBreaker(name, config);
    try {
      restoreInto(breaker.#machine, snapshot, options);
    } catch (error) {
      breaker.#machine.reset(); // clears a timer the initial state may have set
      throw error;
    }
    return breaker;
  }

  constructor(
    readonly name: string,
    config?: CircuitBreakerConfig,
  ) {
    this.config = resolveCircuitBreakerConfig(name, config);
    this.#clock = this.config.clock;
    this.#source = `CircuitBreaker '${name}'`;
    this.#events = new EventPublisher(name, this.#clock, this.#source, EVENT_TYPES);
    this.#machine = new CircuitStateMachine(name, this.#source, this.config, this.#clock, this.#events);
    this.#calls = new BreakerCalls(this.#machine);
    this.#observers = new CallObservers(this.#source, (observer) => {
      this.#machine.observer = observer;
    });
  }

  /** The current state. Reading it never moves OPEN to HALF_OPEN; the next call does. */
  get state(): CircuitBreakerStateName {
    return this.#machine.state.kind;
  }

  /**
   * In HALF_OPEN, the trial calls permitted and not yet recorded nor given back (calls of
   * `execute` still running, and permits taken by hand); 0 in every other state. It is what the
   * breaker's own permits say: a `releasePermission()` with no permit of its own behind it gives
   * one back all the same. A fleet of breakers (`RedisBreakerSync`) reads it to know whether its
   * trial is still running.
   *
   * @example
   * ```ts
   * if (breaker.state === 'HALF_OPEN' && breaker.trialCallsInFlight === 0) console.log('trial idle');
   * ```
   */
  get trialCallsInFlight(): number {
    const state = this.#machine.state;
    if (state.kind !== 'HALF_OPEN') return 0;
    return Math.max(0, this.#machine.config.permittedNumberOfCallsInHalfOpenState - state.metrics.window.at(this.#clock.now()).calls - state.available);
  }

  /** A fresh snapshot of the current state's metrics, with a time window moved to now. */
  get metrics(): CircuitBreakerMetrics {
    return this.#machine.state.metrics.snapshot(this.#clock.now());
  }

  /**
   * The breaker's state as a plain, JSON-safe, versioned object ({@link CircuitBreakerSnapshot}) for
   * {@link CircuitBreaker.restore}; times in it are wall-clock times read from `options.wallClock`
   * (default: the clock's `wallNow()`, `Date.now` on `systemClock`). Changes nothing but moving a time window to now, as reading `metrics` does.
   *
   * @example
   * ```ts
   * await redis.set('breaker:pg', JSON.stringify(breaker.snapshot()));
   * ```
   */
  snapshot(options?: SnapshotOptions): CircuitBreakerSnapshot {
    return takeSnapshot(this.#machine, readWallClock(this.#source, 'snapshot(options)', options, this.#machine.clock));
  }

  /** Subscribes to one event type (an unknown one is a `TypeError`), or to all with `'*'`; returns the unsubscribe function. */
  on<K extends keyof CircuitBreakerEvents & string>(type: K, listener: (event: EventOf<CircuitBreakerEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<CircuitBreakerEvents>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Calls `observer(kind, elapsedMs)` once for every call the breaker records, whether it ran
   * through `execute` or was reported by `onSuccess` / `onResult` / `onError`: `'successful'`
   * (SUCCESS, SLOW_SUCCESS), `'failed'` (ERROR, SLOW_ERROR: a recorded error, a `recordResult`
   * match, a `TimeoutError`) or `'ignored'` (an ignored error, a call its caller aborted). Not
   * called for a call not permitted, nor in DISABLED or FORCED_OPEN (they record nothing). No
   * event object is built; with no observer a call pays one field check. An observer that throws
   * is reported once (`BreakwaterCallbackWarning`) and changes nothing. Several observers may be
   * added; returns the function that removes this one.
   *
   * @example
   * ```ts
   * const seconds = new Histogram({ name: 'pg_calls_seconds', help: '…', labelNames: ['kind'] });
   * const stop = breaker.observeCalls((kind, elapsedMs) => seconds.labels(kind).observe(elapsedMs / 1000));
   * // later
   * stop();
   * ```
   */
  observeCalls(observer: CallObserver): () => void {
    if (typeof observer !== 'function') throw new TypeError(`${this.#source}: observeCalls(observer) needs a function, got ${describeValue(observer)}`);
    return this.#observers.add(observer);
  }

  // ——— execute ———

  /**
   * Runs `fn` if the breaker permits it and records its outcome and duration. Refused calls
   * reject with `CallNotPermittedError`. Never throws synchronously.
   *
   * A caller's `signal` that aborts while `fn` runs rejects the call at once with its reason;
   * `fn` keeps its half-open permit until it really settles. A call whose `fn` then rejects with
   * that reason is not recorded: its permit is given back and `ignoredError` is published.
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    return this.#calls.execute(fn, options);
  }

  /**
   * Wraps `fn` so that every call goes through {@link execute}.
   *
   * @example
   * ```ts
   * const getUser = breaker.decorate((id: string) => db.users.find(id));
   * await getUser('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    if (typeof fn !== 'function') throw new TypeError(`${this.#source}: decorate(fn) needs a function, got ${describeValue(fn)}`);
    return (...args) => this.execute(() => fn(...args));
  }

  // ——— The public permission and recording API (for calls the breaker does not run itself) ———

  /**
   * Takes a permission if the state allows one (moving OPEN to HALF_OPEN once its wait is
   * over); `false` counts the call as not permitted. Pair a `true` with `onSuccess` / `onResult`
   * / `onError`, or `releasePermission`.
   */
  tryAcquirePermission(): boolean {
    // CLOSED first and on its own: a small function the JIT inlines.
    if (this.#machine.state.kind === 'CLOSED') return true;
    const taken = this.#machine.acquire();
    if (taken === false) return false;
    if (taken !== null) taken.apiHeld++;
    return true;
  }

  /** Like {@link tryAcquirePermission}, but throws `CallNotPermittedError` when refused. */
  acquirePermission(): void {
    if (!this.tryAcquirePermission()) throw this.#calls.notPermittedError();
  }

  /**
   * Gives back a half-open permit taken by {@link tryAcquirePermission} / {@link acquirePermission}
   * without recording a call. It never gives back more than were taken that way and neither
   * recorded nor released yet (a permit released twice is released once), and never one held by
   * a call of `execute`. Does nothing in other states.
   */
  releasePermission(): void {
    releasePermit(this.#machine.state, API_PERMIT);
  }

  /** Records a successful call that took `durationMs` (ms >= 0, or a duration string). */
  onSuccess(durationMs: number): void {
    const elapsed = measuredDuration(this.#source, 'onSuccess', durationMs);
    recordSuccess(this.#machine, elapsed, elapsed > this.config.slowCallDurationThreshold, this.#clock.now(), API_PERMIT);
  }

  /** Records a resolved value: a failure if it matches `recordResult`, else a success (`null` and `undefined` are successes: `recordResult` is not asked). */
  onResult(durationMs: number, value: unknown): void {
    recordValue(this.#machine, measuredDuration(this.#source, 'onResult', durationMs), value, this.#clock.now(), API_PERMIT);
  }

  /**
   * Records a failed call: ignored errors release the permission and count nothing; recorded
   * errors count as failures; any other error counts as a success. A `TimeoutError` is never
   * slow, whatever its duration.
   */
  onError(durationMs: number, error: unknown): void {
    recordError(this.#machine, measuredDuration(this.#source, 'onError', durationMs), error, this.#clock.now(), API_PERMIT);
  }

  // ——— Transitions by hand ———
  // Each takes `{ cause: 'fleet' }` when a fleet sync (not a person) moves the breaker; the
  // `stateTransition` event then says so. The default cause is 'manual'.

  /** CLOSED with fresh metrics. */
  transitionToClosedState(options?: TransitionOptions): void {
    this.#machine.transition('CLOSED', manualCause(options));
  }

  /** OPEN for the configured wait of the next opening attempt. */
  transitionToOpenState(options?: TransitionOptions): void {
    this.#machine.transition('OPEN', manualCause(options));
  }

  /** OPEN for `wait` (ms, or a duration string like `'10s'`); the opening attempt is kept, as in Resilience4j. */
  transitionToOpenStateFor(wait: Duration, options?: TransitionOptions): void {
    this.#machine.transition('OPEN', manualCause(options), openWaitFor(this.#source, wait));
  }

  /** OPEN until the clock reads `clockTime` (a time of the breaker's clock, not before now); the opening attempt is kept. */
  transitionToOpenStateUntil(clockTime: number, options?: TransitionOptions): void {
    this.#machine.transition(
      'OPEN',
      manualCause(options),
      openWaitUntil(this.#source, clockTime, () => this.#clock.now()),
    );
  }

  /** HALF_OPEN with fresh trial permits. */
  transitionToHalfOpenState(options?: TransitionOptions): void {
    this.#machine.transition('HALF_OPEN', manualCause(options));
  }

  /** DISABLED: every call permitted, nothing recorded. */
  transitionToDisabledState(options?: TransitionOptions): void {
    this.#machine.transition('DISABLED', manualCause(options));
  }

  /** METRICS_ONLY: every call permitted and recorded, no transition on its own. */
  transitionToMetricsOnlyState(options?: TransitionOptions): void {
    this.#machine.transition('METRICS_ONLY', manualCause(options));
  }

  /** FORCED_OPEN: no call permitted until a manual transition. */
  transitionToForcedOpenState(options?: TransitionOptions): void {
    this.#machine.transition('FORCED_OPEN', manualCause(options));
  }

  /** Back to CLOSED with fresh metrics from any state; publishes `stateTransition` (if the state changes) and `reset`. */
  reset(): void {
    this.#machine.reset();
  }
}
