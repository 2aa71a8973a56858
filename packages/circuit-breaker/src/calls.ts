import { CallNotPermittedError, type CallContext, type Clock, type ExecuteOptions, type PolicyFn } from '@breakwater/core';
import { describeValue, enterCall, invoke, NEVER_ABORTED, raceAbort, ROOT_CONTEXT, withoutStack } from '@breakwater/core/internal';
import { ignore, recordError, recordValue } from './recording.js';
import { releasePermit, type Permit } from './permits.js';
import type { CircuitStateMachine } from './state-machine.js';

// The call plumbing of `CircuitBreaker.execute`: take a permission of the state machine, run `fn`,
// time it, and record how it ended (recording.ts) when its promise settles; the caller's promise
// settles the same way. The public method and its documentation are circuit-breaker.ts's.

/** The calls of one breaker's `execute` (one per breaker). */
export class BreakerCalls {
  readonly #machine: CircuitStateMachine;
  readonly #clock: Clock;

  constructor(machine: CircuitStateMachine) {
    this.#machine = machine;
    this.#clock = machine.clock;
  }

  /** `CircuitBreaker.execute`: the call protocol (ARCHITECTURE.md), with a permit of the state machine. */
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
      if (typeof fn !== 'function') return Promise.reject(new TypeError(`${this.#machine.source}: execute(fn) needs a function, got ${describeValue(fn)}`));
      // CLOSED first and on its own: no permit to track, nothing else to check.
      if (this.#machine.state.kind !== 'CLOSED') {
        const taken = this.#machine.acquire();
        if (taken === false) return Promise.reject(this.notPermittedError());
        permit = taken;
      }
      start = this.#clock.now();
    } catch (error) {
      // Only a throwing clock can get here; a permit taken is given back.
      releasePermit(this.#machine.state, permit);
      return Promise.reject(error);
    }
    // The outcome settles exactly once, whatever `fn` returns (a hostile thenable or a look-alike
    // promise included: core's `invoke` adopts them); a native promise is followed as it is.
    const recorded = this.#follow(invoke(fn, ctx), start, ctx, permit);
    // The caller's abort rejects at once (one listener per signal, whatever the number of calls).
    return ctx.signal === NEVER_ABORTED ? recorded : raceAbort(recorded, ctx.signal);
  }

  /** The error of a refused call (without a stack unless `writableStackTraceEnabled`). */
  notPermittedError(): CallNotPermittedError {
    const machine = this.#machine;
    const state = machine.state.kind;
    if (machine.config.writableStackTraceEnabled) return new CallNotPermittedError(machine.name, state);
    return withoutStack(() => new CallNotPermittedError(machine.name, state));
  }

  /** Records the call's promise `outcome` when it settles, with the shared handlers if they are free. */
  #follow<T>(outcome: Promise<T>, start: number, ctx: CallContext, permit: Permit): Promise<T> {
    if (!this.#sharedHandlersLent) {
      // A method call, not `Promise.prototype.then.call(outcome, …)` (some 15 ns more on this path in V8).
      const recorded = outcome.then(this.#sharedOnFulfilled as (value: T) => T, this.#sharedOnRejected as (error: unknown) => Promise<T>);
      // Handlers never run before the native `then` returns: the borrower is set for them now.
      this.#sharedHandlersLent = true;
      this.#borrowerStart = start;
      this.#borrowerContext = ctx;
      this.#borrowerPermit = permit;
      this.#borrowerPromise = outcome;
      return recorded;
    }
    return outcome.then(
      (value) => this.#fulfilled(value, start, permit),
      (error: unknown) => this.#rejected(error, start, ctx, permit, outcome),
    );
  }

  // The shared handlers. Following a call needs a pair of `then` handlers that know the call's
  // start, context, permit and promise. Rather than two new closures per call, the breaker builds
  // one pair once and lends it to one call at a time (the borrower), whose details wait in the
  // `#borrower…` fields; a call that starts while the pair is lent out (calls in parallel) gets
  // closures of its own. The pair is handed back the moment its call settles, before the call is
  // recorded (a listener may start the next call). It spares a sequential caller two closures a call.
  #sharedHandlersLent = false;
  #borrowerStart = 0;
  #borrowerContext: CallContext = ROOT_CONTEXT;
  #borrowerPermit: Permit = null;
  #borrowerPromise: Promise<unknown> | undefined;
  readonly #sharedOnFulfilled = (value: unknown): unknown => {
    const start = this.#borrowerStart;
    const permit = this.#borrowerPermit;
    this.#handBackSharedHandlers();
    return this.#fulfilled(value, start, permit);
  };
  readonly #sharedOnRejected = (error: unknown): Promise<unknown> => {
    const start = this.#borrowerStart;
    const ctx = this.#borrowerContext;
    const permit = this.#borrowerPermit;
    const promise = this.#borrowerPromise!;
    this.#handBackSharedHandlers();
    return this.#rejected(error, start, ctx, permit, promise);
  };
  #handBackSharedHandlers(): void {
    this.#sharedHandlersLent = false;
    this.#borrowerContext = ROOT_CONTEXT;
    this.#borrowerPermit = null;
    this.#borrowerPromise = undefined;
  }

  /** Records a call that resolved with `value` and gives the value back. */
  #fulfilled<T>(value: T, start: number, permit: Permit): T {
    const now = this.#clock.now();
    recordValue(this.#machine, now - start, value, now, permit);
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
    if (ctx !== ROOT_CONTEXT && ctx.signal.aborted && error === ctx.signal.reason) ignore(this.#machine, error, elapsed, permit);
    else recordError(this.#machine, elapsed, error, now, permit);
    return promise as Promise<never>;
  }
}
