import { onAbort, TimeoutError, type CallContext, type Clock, type EventPublisher, type PolicyFn, type TimerHandle } from '@breakwater/core';
import { follow, holdProcess, NEVER_ABORTED, releaseProcess } from '@breakwater/core/internal';
import type { TimeLimiterEvents } from './events.js';

/** What every call of one limiter shares: its settings, counters and events (one object per limiter). */
export interface LimiterHost {
  readonly name: string;
  readonly timeoutMs: number;
  readonly cancelRunningFuture: boolean;
  readonly clock: Clock;
  readonly events: EventPublisher<TimeLimiterEvents>;
  successes: number;
  failures: number;
  timeouts: number;
}

const RUNNING = 0;
const SETTLED = 1;
const TIMED_OUT = 2;
const ABORTED = 3;
type State = typeof RUNNING | typeof SETTLED | typeof TIMED_OUT | typeof ABORTED;

/** Nothing to stop: the call follows no caller signal. */
const noop = (): void => {};

/**
 * One call racing its limiter's clock. The object is also the `ctx` handed to the work: its
 * `signal` is a getter, so the `AbortController` exists only if the work reads it. The first of
 * "the work settles", "the timer fires", "the caller aborts" wins; the others are no-ops, a late
 * result is dropped and a late rejection swallowed (a handler is always attached). Whatever `fn`
 * returns or throws — a hostile thenable included — the call settles and is counted exactly once
 * and the constructor never throws. The race is a wait the caller awaits: while it runs it keeps
 * the process alive, like a socket would (core's `holdProcess`). The caller's signal is followed through core's
 * `onAbort` hub: one listener on it for all of Breakwater, removed when the call ends.
 */
export class LimitedCall<T> implements CallContext {
  readonly attempt: number;
  readonly promise: Promise<T>;
  readonly #host: LimiterHost;
  readonly #outer: AbortSignal;
  readonly #started: number;
  #state: State = RUNNING;
  #controller: AbortController | undefined;
  /** Why the work's signal aborts, once the call timed out or was aborted. */
  #reason: unknown;
  #timer: TimerHandle | undefined;
  /** Whether this race holds the process alive (core's `holdProcess`), until it ends. */
  #holding = false;
  /** Stops following the caller's signal. */
  #unfollow: () => void = noop;
  #resolve!: (value: T) => void;
  #reject!: (error: unknown) => void;

  constructor(host: LimiterHost, fn: PolicyFn<T>, parent: CallContext) {
    this.#host = host;
    this.#outer = parent.signal;
    this.attempt = parent.attempt;
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#started = host.clock.now();
    let value: T | PromiseLike<T>;
    try {
      value = fn(this);
    } catch (error) {
      this.#fail(error);
      return;
    }
    // A plain value settles the call at once, with no timer; a thenable races the timer. Its
    // `then` is read once here (a getter that throws fails the call) and the thenable is then
    // adopted by core's `follow`, which settles once whatever its `then` does.
    let running: Promise<T>;
    if (value instanceof Promise) running = follow(value);
    else {
      let then: unknown;
      try {
        then = value !== null && (typeof value === 'object' || typeof value === 'function') ? (value as PromiseLike<T>).then : undefined;
      } catch (error) {
        this.#fail(error);
        return;
      }
      if (typeof then !== 'function') {
        this.#succeed(value as T);
        return;
      }
      running = follow(value);
    }
    const outer = this.#outer;
    if (outer !== NEVER_ABORTED) {
      // `fn` may have aborted the caller's signal itself (onAbort does not call back for that).
      if (outer.aborted) this.#abort();
      else this.#unfollow = onAbort(outer, () => this.#abort());
    }
    if (this.#state === RUNNING && host.timeoutMs !== Infinity) {
      this.#timer = host.clock.setTimeout(() => this.#timeout(), host.timeoutMs);
      this.#holding = holdProcess(this.#timer);
    }
    running.then(
      (v) => {
        if (this.#state === RUNNING) this.#succeed(v);
      },
      (error: unknown) => {
        if (this.#state === RUNNING) this.#fail(error);
      },
    );
  }

  /**
   * The signal of the work: aborted with the `TimeoutError` on time-out (when
   * `cancelRunningFuture`) or with the caller's reason when the caller aborts.
   */
  get signal(): AbortSignal {
    if (!this.#host.cancelRunningFuture) return this.#outer;
    let controller = this.#controller;
    if (controller === undefined) {
      controller = this.#controller = new AbortController();
      if (this.#state === TIMED_OUT || this.#state === ABORTED) controller.abort(this.#reason);
    }
    return controller.signal;
  }

  #stop(state: State): void {
    this.#state = state;
    if (this.#timer !== undefined) {
      this.#host.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#holding) {
      this.#holding = false;
      releaseProcess();
    }
    this.#unfollow();
    this.#unfollow = noop;
  }

  #succeed(value: T): void {
    this.#stop(SETTLED);
    const host = this.#host;
    host.successes++;
    if (host.events.wants('success')) host.events.emit('success', { elapsed: host.clock.now() - this.#started });
    this.#resolve(value);
  }

  #fail(error: unknown): void {
    this.#stop(SETTLED);
    const host = this.#host;
    host.failures++;
    if (host.events.wants('error')) host.events.emit('error', { error, elapsed: host.clock.now() - this.#started });
    this.#reject(error);
  }

  #timeout(): void {
    if (this.#state !== RUNNING) return;
    this.#timer = undefined;
    this.#stop(TIMED_OUT);
    const host = this.#host;
    const error = new TimeoutError(host.name, host.timeoutMs);
    this.#reason = error;
    if (host.cancelRunningFuture) this.#controller?.abort(error);
    host.timeouts++;
    if (host.events.wants('timeout')) {
      host.events.emit('timeout', { elapsed: host.clock.now() - this.#started, timeoutMs: host.timeoutMs });
    }
    this.#reject(error);
  }

  #abort(): void {
    if (this.#state !== RUNNING) return;
    this.#stop(ABORTED);
    const reason: unknown = this.#outer.reason;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const host = this.#host;
    host.failures++;
    if (host.events.wants('error')) host.events.emit('error', { error: reason, elapsed: host.clock.now() - this.#started });
    this.#reject(reason);
  }
}
