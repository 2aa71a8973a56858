import {
  callbackThrew,
  CallNotPermittedError,
  describeValue,
  enterCall,
  EventPublisher,
  IllegalStateTransitionError,
  invoke,
  NEVER_ABORTED,
  parseDuration,
  raceAbort,
  ResultRecordedAsFailureError,
  ROOT_CONTEXT,
  TimeoutError,
  type AnyEventOf,
  type CallContext,
  type Clock,
  type Duration,
  type EventOf,
  type ExecuteOptions,
  type Listener,
  type Observable,
  type Policy,
  type PolicyFn,
} from '@breakwater/core';
import { resolveConfig, type CircuitBreakerConfig, type ResolvedCircuitBreakerConfig } from './config.js';
import { EVENT_TYPES, type CircuitBreakerEvents } from './events.js';
import {
  BELOW_MINIMUM,
  closedMetrics,
  FAILURE_EXCEEDED,
  halfOpenMetrics,
  SLOW_EXCEEDED,
  type CircuitBreakerMetrics,
  type Exceeded,
  type StateMetrics,
} from './metrics.js';
import { Outcome } from './outcome.js';
import { isLegalTransition, type BreakerState, type CircuitBreakerStateName, type HalfOpenState, type OpenState } from './states.js';

/** The permit a call recorded through the public `onSuccess` / `onResult` / `onError` holds, if any. */
const USER: unique symbol = Symbol('user permit');

/**
 * What a call holds while it runs: the HALF_OPEN state object that handed it a trial permit
 * (`execute`), {@link USER} (a call recorded through the public API, whose permit, if any, is
 * counted in `userHeld`), or `null` (no permit to give back: CLOSED, DISABLED, METRICS_ONLY).
 */
type Permit = HalfOpenState | typeof USER | null;

/** How an error is recorded, once the predicates have judged it. */
const SUCCESS = 0;
const RECORDED = 1;
const IGNORED = 2;
type ErrorVerdict = typeof SUCCESS | typeof RECORDED | typeof IGNORED;

const CALLBACK_FALLBACK = 'the call is recorded as an error';

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
  readonly #source: string;
  #state: BreakerState;

  /** Same as `new CircuitBreaker(name, config)`. */
  static of(name: string, config?: CircuitBreakerConfig): CircuitBreaker {
    return new CircuitBreaker(name, config);
  }

  constructor(
    readonly name: string,
    config?: CircuitBreakerConfig,
  ) {
    this.config = resolveConfig(name, config);
    this.#clock = this.config.clock;
    this.#source = `CircuitBreaker '${name}'`;
    this.#events = new EventPublisher(name, this.#clock, this.#source, EVENT_TYPES);
    const closed: BreakerState = { kind: 'CLOSED', metrics: closedMetrics(this.config, this.#clock.now()) };
    const initial = this.config.initialState;
    // As in Resilience4j, a breaker created OPEN, HALF_OPEN or FORCED_OPEN is at opening attempt 1.
    this.#state = initial === 'CLOSED' ? closed : this.#build(initial, closed, initial === 'DISABLED' || initial === 'METRICS_ONLY' ? 0 : 1);
  }

  /** The current state. Reading it never moves OPEN to HALF_OPEN; the next call does. */
  get state(): CircuitBreakerStateName {
    return this.#state.kind;
  }

  /** A fresh snapshot of the current state's metrics, with a time window moved to now. */
  get metrics(): CircuitBreakerMetrics {
    return this.#state.metrics.snapshot(this.#clock.now());
  }

  /** Subscribes to one event type (an unknown one is a `TypeError`), or to all with `'*'`; returns the unsubscribe function. */
  on<K extends keyof CircuitBreakerEvents & string>(type: K, listener: (event: EventOf<CircuitBreakerEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<CircuitBreakerEvents>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Runs `fn` if the breaker permits it and records its outcome and duration. Refused calls
   * reject with `CallNotPermittedError`. Never throws synchronously.
   *
   * A caller's `signal` that aborts while `fn` runs rejects the call at once with its reason;
   * `fn` keeps its half-open permit until it really settles. A call whose `fn` then rejects with
   * that reason is not recorded: its permit is given back and `ignoredError` is published.
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    let ctx: CallContext;
    let permit: Permit = null;
    let start: number;
    try {
      if (options === undefined) ctx = ROOT_CONTEXT;
      else {
        const entered = enterCall(options);
        if (entered instanceof Promise) return entered;
        ctx = entered;
      }
      if (typeof fn !== 'function') return Promise.reject(new TypeError(`${this.#source}: execute(fn) needs a function, got ${describeValue(fn)}`));
      // CLOSED first and on its own: no permit to track, nothing else to check.
      if (this.#state.kind !== 'CLOSED') {
        const taken = this.#acquire();
        if (taken === false) return Promise.reject(this.#notPermittedError());
        permit = taken;
      }
      start = this.#clock.now();
    } catch (error) {
      // Only a throwing clock can get here; a permit taken is given back.
      this.#release(permit);
      return Promise.reject(error);
    }
    // The outcome settles exactly once, whatever `fn` returns (a hostile thenable or a look-alike
    // promise included: core's `invoke` adopts them); a native promise is followed as it is.
    const recorded = this.#follow(invoke(fn, ctx), start, ctx, permit);
    // The caller's abort rejects at once (one listener per signal, whatever the number of calls).
    return ctx.signal === NEVER_ABORTED ? recorded : raceAbort(recorded, ctx.signal);
  }

  /**
   * Records `outcome` when it settles: the call's promise. The breaker's own pair of handlers
   * when no other call holds them (the slot), else a closure.
   */
  #follow<T>(outcome: Promise<T>, start: number, ctx: CallContext, permit: Permit): Promise<T> {
    if (this.#slotFree) {
      // A method call, not `Promise.prototype.then.call(outcome, …)` (some 15 ns more on this path in V8).
      const recorded = outcome.then(this.#slotFulfilled as (value: T) => T, this.#slotRejected as (error: unknown) => Promise<T>);
      // Handlers never run before the native `then` returns: the slot is set for them now.
      this.#slotFree = false;
      this.#slotStart = start;
      this.#slotContext = ctx;
      this.#slotPermit = permit;
      this.#slotPromise = outcome;
      return recorded;
    }
    return outcome.then(
      (value) => this.#fulfilled(value, start, permit),
      (error: unknown) => this.#rejected(error, start, ctx, permit, outcome),
    );
  }

  // One pair of handlers per breaker, for the call that holds them (the slot): a call taking them
  // needs no closure of its own. The slot is free again the moment its call settles, before the
  // call is recorded (a listener may start the next call).
  #slotFree = true;
  #slotStart = 0;
  #slotContext: CallContext = ROOT_CONTEXT;
  #slotPermit: Permit = null;
  #slotPromise: Promise<unknown> | undefined;
  readonly #slotFulfilled = (value: unknown): unknown => {
    const start = this.#slotStart;
    const permit = this.#slotPermit;
    this.#slotFree = true;
    this.#slotContext = ROOT_CONTEXT;
    this.#slotPermit = null;
    this.#slotPromise = undefined;
    return this.#fulfilled(value, start, permit);
  };
  readonly #slotRejected = (error: unknown): Promise<unknown> => {
    const start = this.#slotStart;
    const ctx = this.#slotContext;
    const permit = this.#slotPermit;
    const promise = this.#slotPromise!;
    this.#slotFree = true;
    this.#slotContext = ROOT_CONTEXT;
    this.#slotPermit = null;
    this.#slotPromise = undefined;
    return this.#rejected(error, start, ctx, permit, promise);
  };

  /** Records a call that resolved with `value` and gives the value back. */
  #fulfilled<T>(value: T, start: number, permit: Permit): T {
    const now = this.#clock.now();
    this.#resultAt(now - start, value, now, permit);
    return value;
  }

  /**
   * Records a call whose promise `promise` rejected with `error`, and hands back that very promise
   * for the call's own promise to follow: it rejects with the same error, without a throw (a throw
   * costs V8 some 0.4 µs) and without a new rejected promise.
   */
  #rejected(error: unknown, start: number, ctx: CallContext, permit: Permit, promise: Promise<unknown>): Promise<never> {
    const now = this.#clock.now();
    const elapsed = now - start;
    // A call that ended because its caller aborted says nothing about the backend: not recorded.
    if (ctx !== ROOT_CONTEXT && ctx.signal.aborted && error === ctx.signal.reason) this.#ignore(error, elapsed, permit);
    else this.#errorAt(elapsed, error, now, permit);
    return promise as Promise<never>;
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

  // ——— permission ———

  /**
   * Takes a permission if the state allows one (moving OPEN to HALF_OPEN once its wait is
   * over); `false` counts the call as not permitted. Pair a `true` with `onSuccess` / `onResult`
   * / `onError`, or `releasePermission`.
   */
  tryAcquirePermission(): boolean {
    // CLOSED first and on its own: a small function the JIT inlines.
    if (this.#state.kind === 'CLOSED') return true;
    const taken = this.#acquire();
    if (taken === false) return false;
    if (taken !== null) taken.userHeld++;
    return true;
  }

  /**
   * A permission in any state but CLOSED: `null` when there is no permit to give back later
   * (DISABLED, METRICS_ONLY), the HALF_OPEN state that handed out a trial permit, or `false`
   * (refused and counted).
   */
  #acquire(): HalfOpenState | null | false {
    const state = this.#state;
    switch (state.kind) {
      case 'CLOSED':
      case 'DISABLED':
      case 'METRICS_ONLY':
        return null;
      case 'OPEN':
        if (this.#clock.now() > state.deadline) {
          this.#transition('HALF_OPEN');
          // A listener of that transition may have moved the breaker on: take from what is current.
          const current = this.#state;
          if (current.kind === 'HALF_OPEN' && current.available > 0) {
            current.available--;
            return current;
          }
          if (current.kind === 'CLOSED' || current.kind === 'DISABLED' || current.kind === 'METRICS_ONLY') return null;
        }
        break;
      case 'HALF_OPEN':
        if (state.available > 0) {
          state.available--;
          return state;
        }
        break;
      case 'FORCED_OPEN':
        break;
    }
    this.#state.metrics.numberOfNotPermittedCalls++;
    if (this.#events.wants('callNotPermitted') && this.#publishesCalls()) this.#events.emit('callNotPermitted', { state: this.#state.kind });
    return false;
  }

  /** Like {@link tryAcquirePermission}, but throws `CallNotPermittedError` when refused. */
  acquirePermission(): void {
    if (!this.tryAcquirePermission()) throw this.#notPermittedError();
  }

  /**
   * Gives back a half-open permit taken by {@link tryAcquirePermission} / {@link acquirePermission}
   * without recording a call. It never gives back more than were taken that way and neither
   * recorded nor released yet (a permit released twice is released once), and never one held by
   * a call of `execute`. Does nothing in other states.
   */
  releasePermission(): void {
    this.#release(USER);
  }

  /** Gives back the permit of a call that is not recorded (released at most once per call). */
  #release(permit: Permit): void {
    if (permit === null) return;
    const state = this.#state;
    if (permit === USER) {
      if (state.kind === 'HALF_OPEN' && state.userHeld > 0) {
        state.userHeld--;
        state.available++;
      }
    } else if (permit === state) {
      // Only into the HALF_OPEN that handed it out: a later one has fresh permits of its own.
      permit.available++;
    }
  }

  /** A call is recorded: a permit of the public API is used up (an `execute` permit simply stays taken). */
  #consume(permit: Permit): void {
    if (permit !== USER) return;
    const state = this.#state;
    if (state.kind === 'HALF_OPEN' && state.userHeld > 0) state.userHeld--;
  }

  // ——— recording ———

  /** Records a successful call that took `durationMs` (ms >= 0, or a duration string). */
  onSuccess(durationMs: number): void {
    const ms = this.#duration('onSuccess', durationMs);
    this.#successAt(ms, this.#clock.now(), USER);
  }

  /** Records a resolved value: a failure if it matches `recordResult`, else a success. */
  onResult(durationMs: number, value: unknown): void {
    const ms = this.#duration('onResult', durationMs);
    this.#resultAt(ms, value, this.#clock.now(), USER);
  }

  /**
   * Records a failed call: ignored errors release the permission and count nothing; recorded
   * errors count as failures; any other error counts as a success. A `TimeoutError` is never
   * slow, whatever its duration.
   */
  onError(durationMs: number, error: unknown): void {
    const ms = this.#duration('onError', durationMs);
    this.#errorAt(ms, error, this.#clock.now(), USER);
  }

  /** A measured duration given to onSuccess / onResult / onError: a number of ms >= 0 (or a duration string). */
  #duration(method: string, value: unknown): number {
    if (typeof value === 'number' && value >= 0 && value < Infinity) return value;
    const ms = typeof value === 'string' ? parseDuration(value) : undefined;
    if (ms !== undefined && ms >= 0) return ms;
    const message = `${this.#source}: ${method}(durationMs, …) needs a duration in ms (a finite number >= 0, or a string like '250ms'), got ${describeValue(value)}`;
    throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
  }

  // The recording itself, at `now` (the clock reading that ended the call): one reading per call end.

  #successAt(durationMs: number, now: number, permit: Permit): void {
    this.#consume(permit);
    if (this.#events.wants('success') && this.#publishesCalls()) this.#events.emit('success', { elapsed: durationMs });
    this.#record(durationMs > this.config.slowCallDurationThreshold ? Outcome.SLOW_SUCCESS : Outcome.SUCCESS, now);
  }

  #resultAt(durationMs: number, value: unknown, now: number, permit: Permit): void {
    const recordResult = this.config.recordResult;
    if (recordResult !== undefined && this.#resultIsFailure(recordResult, value)) {
      this.#recordError(durationMs, new ResultRecordedAsFailureError(this.name, value), now, permit);
    } else {
      this.#successAt(durationMs, now, permit);
    }
  }

  /** `recordResult(value)`, contained: a throw records the call as an error (reported once). */
  #resultIsFailure(recordResult: (value: unknown) => boolean, value: unknown): boolean {
    try {
      return Boolean(recordResult(value));
    } catch (thrown) {
      callbackThrew(this.#source, 'recordResult', recordResult, thrown, CALLBACK_FALLBACK);
      return true;
    }
  }

  #errorAt(durationMs: number, error: unknown, now: number, permit: Permit): void {
    switch (this.#judge(error)) {
      case IGNORED:
        return this.#ignore(error, durationMs, permit);
      case RECORDED:
        return this.#recordError(durationMs, error, now, permit);
      default:
        if (error instanceof TimeoutError) {
          // Not recorded as a failure, and never slow: a plain success.
          this.#consume(permit);
          if (this.#events.wants('success') && this.#publishesCalls()) this.#events.emit('success', { elapsed: durationMs });
          this.#record(Outcome.SUCCESS, now);
        } else this.#successAt(durationMs, now, permit);
    }
  }

  /**
   * Ignored > recorded > success, through the user's predicates, contained: a predicate that
   * throws records the call as an error, and its error is reported once.
   */
  #judge(error: unknown): ErrorVerdict {
    const config = this.config;
    try {
      if (config.isIgnored(error)) return IGNORED;
    } catch (thrown) {
      const option = config.ignoreException !== undefined ? 'ignoreException' : 'ignoreExceptions';
      callbackThrew(this.#source, option, config.ignoreException ?? config.isIgnored, thrown, CALLBACK_FALLBACK);
      return RECORDED;
    }
    try {
      return config.isRecorded(error) ? RECORDED : SUCCESS;
    } catch (thrown) {
      const option = config.recordException !== undefined ? 'recordException' : 'recordExceptions';
      callbackThrew(this.#source, option, config.recordException ?? config.isRecorded, thrown, CALLBACK_FALLBACK);
      return RECORDED;
    }
  }

  #ignore(error: unknown, elapsed: number, permit: Permit): void {
    this.#release(permit);
    if (this.#events.wants('ignoredError') && this.#publishesCalls()) this.#events.emit('ignoredError', { error, elapsed });
  }

  /** DISABLED and FORCED_OPEN publish no call events (as in Resilience4j). */
  #publishesCalls(): boolean {
    const kind = this.#state.kind;
    return kind !== 'DISABLED' && kind !== 'FORCED_OPEN';
  }

  #recordError(elapsed: number, error: unknown, now: number, permit: Permit): void {
    this.#consume(permit);
    if (this.#events.wants('error') && this.#publishesCalls()) this.#events.emit('error', { error, elapsed });
    const slow = !(error instanceof TimeoutError) && elapsed > this.config.slowCallDurationThreshold;
    this.#record(slow ? Outcome.SLOW_ERROR : Outcome.ERROR, now);
  }

  #record(outcome: Outcome, now: number): void {
    const state = this.#state;
    // CLOSED first and on its own (a small function the JIT inlines); the other states below.
    if (state.kind === 'CLOSED') {
      const exceeded = state.metrics.record(outcome, now);
      if (exceeded > 0) this.#open(state, exceeded, now);
    } else this.#recordOther(state, outcome, now);
  }

  /**
   * A verdict reached a threshold in CLOSED or HALF_OPEN: publish the rate events, then open —
   * unless a listener of those events moved the breaker itself (its manual transition wins).
   */
  #open(state: BreakerState, exceeded: Exceeded, now: number): void {
    this.#publishExceeded(exceeded, state.metrics, now);
    if (this.#state === state) this.#transition('OPEN');
  }

  #recordOther(state: BreakerState, outcome: Outcome, now: number): void {
    switch (state.kind) {
      case 'CLOSED': {
        const exceeded = state.metrics.record(outcome, now);
        if (exceeded > 0) this.#open(state, exceeded, now);
        return;
      }
      case 'HALF_OPEN': {
        const exceeded = state.metrics.record(outcome, now);
        if (exceeded === BELOW_MINIMUM) return;
        if (exceeded > 0) this.#open(state, exceeded, now);
        else this.#transition('CLOSED');
        return;
      }
      case 'METRICS_ONLY': {
        const exceeded = state.metrics.record(outcome, now);
        const fresh = exceeded > 0 ? exceeded & ~state.reported : 0;
        if (fresh !== 0) {
          state.reported |= fresh;
          this.#publishExceeded(fresh, state.metrics, now);
        }
        return;
      }
      case 'OPEN':
        // A call permitted before the breaker opened still counts in the kept metrics.
        state.metrics.record(outcome, now);
        return;
      case 'DISABLED':
      case 'FORCED_OPEN':
        return;
    }
  }

  #publishExceeded(exceeded: Exceeded, metrics: StateMetrics, now: number): void {
    if (exceeded & FAILURE_EXCEEDED && this.#events.wants('failureRateExceeded')) {
      this.#events.emit('failureRateExceeded', { failureRate: metrics.snapshot(now).failureRate });
    }
    if (exceeded & SLOW_EXCEEDED && this.#events.wants('slowCallRateExceeded')) {
      this.#events.emit('slowCallRateExceeded', { slowCallRate: metrics.snapshot(now).slowCallRate });
    }
  }

  #notPermittedError(): CallNotPermittedError {
    const state = this.#state.kind;
    if (this.config.writableStackTraceEnabled) return new CallNotPermittedError(this.name, state);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    const error = new CallNotPermittedError(this.name, state);
    Error.stackTraceLimit = limit;
    return error;
  }

  // ——— transitions ———

  /** CLOSED with fresh metrics. */
  transitionToClosedState(): void {
    this.#transition('CLOSED');
  }

  /** OPEN for the configured wait of the next opening attempt. */
  transitionToOpenState(): void {
    this.#transition('OPEN');
  }

  /** OPEN for `wait` (ms, or a duration string like `'10s'`); the opening attempt is kept, as in Resilience4j. */
  transitionToOpenStateFor(wait: Duration): void {
    const ms = parseDuration(wait);
    if (ms === undefined || !(ms >= 0) || ms === Infinity) {
      const message = `${this.#source}: transitionToOpenStateFor(wait) needs a duration (ms >= 0, finite, or a string like '250ms', '10s', '1.5m', '2h'), got ${describeValue(wait)}`;
      throw typeof wait === 'number' ? new RangeError(message) : new TypeError(message);
    }
    this.#transition('OPEN', ms);
  }

  /** OPEN until the clock reads `clockTime` (a time of the breaker's clock, not before now); the opening attempt is kept. */
  transitionToOpenStateUntil(clockTime: number): void {
    if (typeof clockTime !== 'number') {
      throw new TypeError(`${this.#source}: transitionToOpenStateUntil(clockTime) needs a time of the breaker's clock (ms), got ${describeValue(clockTime)}`);
    }
    const now = this.#clock.now();
    if (!(clockTime >= now) || clockTime === Infinity) {
      throw new RangeError(`${this.#source}: transitionToOpenStateUntil(clockTime) needs a finite clock time not before now (${now}), got ${describeValue(clockTime)}`);
    }
    this.#transition('OPEN', clockTime - now);
  }

  /** HALF_OPEN with fresh trial permits. */
  transitionToHalfOpenState(): void {
    this.#transition('HALF_OPEN');
  }

  /** DISABLED: every call permitted, nothing recorded. */
  transitionToDisabledState(): void {
    this.#transition('DISABLED');
  }

  /** METRICS_ONLY: every call permitted and recorded, no transition on its own. */
  transitionToMetricsOnlyState(): void {
    this.#transition('METRICS_ONLY');
  }

  /** FORCED_OPEN: no call permitted until a manual transition. */
  transitionToForcedOpenState(): void {
    this.#transition('FORCED_OPEN');
  }

  /** Back to CLOSED with fresh metrics from any state; publishes `stateTransition` (if the state changes) and `reset`. */
  reset(): void {
    const from = this.#state;
    this.#leave(from);
    this.#state = this.#build('CLOSED', from, 0);
    if (from.kind !== 'CLOSED') this.#publishTransition(from.kind, 'CLOSED');
    if (this.#events.wants('reset')) this.#events.emit('reset', {});
  }

  /**
   * Moves to `to` (a fresh state object, also for a self-transition). The opening attempt is
   * Resilience4j's: OPEN adds one (except for a given wait, `transitionToOpenStateFor/Until`,
   * which keeps it), FORCED_OPEN adds one, HALF_OPEN keeps it, the others go back to 0.
   */
  #transition(to: CircuitBreakerStateName, waitMs?: number): void {
    const from = this.#state;
    if (!isLegalTransition(from.kind, to)) throw new IllegalStateTransitionError(this.name, from.kind, to);
    const attempt = from.kind === 'OPEN' || from.kind === 'HALF_OPEN' || from.kind === 'FORCED_OPEN' ? from.attempt : 0;
    const next = (to === 'OPEN' && waitMs === undefined) || to === 'FORCED_OPEN' ? attempt + 1 : to === 'OPEN' || to === 'HALF_OPEN' ? attempt : 0;
    this.#leave(from);
    this.#state = this.#build(to, from, next, waitMs);
    if (from.kind !== to) this.#publishTransition(from.kind, to);
  }

  #publishTransition(from: CircuitBreakerStateName, to: CircuitBreakerStateName): void {
    if (this.#events.wants('stateTransition')) this.#events.emit('stateTransition', { from, to });
  }

  #leave(state: BreakerState): void {
    if ((state.kind === 'OPEN' || state.kind === 'HALF_OPEN') && state.timer !== undefined) {
      this.#clock.clearTimeout(state.timer);
      state.timer = undefined;
    }
  }

  /** The new state object for `to`, coming from `from`, at opening attempt `attempt`. */
  #build(to: CircuitBreakerStateName, from: BreakerState, attempt: number, waitMs?: number): BreakerState {
    const config = this.config;
    const now = this.#clock.now();
    switch (to) {
      case 'CLOSED':
        return { kind: 'CLOSED', metrics: closedMetrics(config, now) };
      case 'DISABLED':
        return { kind: 'DISABLED', metrics: closedMetrics(config, now) };
      case 'METRICS_ONLY':
        return { kind: 'METRICS_ONLY', metrics: closedMetrics(config, now), reported: 0 };
      case 'FORCED_OPEN':
        return { kind: 'FORCED_OPEN', attempt, metrics: closedMetrics(config, now) };
      case 'OPEN': {
        // The wait function is contained (a throw or a bad wait keeps the previous one): nothing here throws from a timer.
        const wait = waitMs ?? config.waitInOpenState(attempt);
        const state: OpenState = { kind: 'OPEN', deadline: now + wait, attempt, metrics: from.metrics, timer: undefined };
        if (config.automaticTransitionFromOpenToHalfOpenEnabled) {
          state.timer = this.#clock.setTimeout(() => {
            state.timer = undefined;
            if (this.#state === state) this.#transition('HALF_OPEN');
          }, wait);
        }
        return state;
      }
      case 'HALF_OPEN': {
        const permitted = config.permittedNumberOfCallsInHalfOpenState;
        const state: HalfOpenState = {
          kind: 'HALF_OPEN',
          attempt,
          metrics: halfOpenMetrics(config, permitted),
          available: permitted,
          userHeld: 0,
          timer: undefined,
        };
        if (config.maxWaitDurationInHalfOpenState > 0) {
          state.timer = this.#clock.setTimeout(() => {
            state.timer = undefined;
            if (this.#state === state) this.#transition(config.transitionToStateAfterWaitDuration);
          }, config.maxWaitDurationInHalfOpenState);
        }
        return state;
      }
    }
  }
}
