import { AsyncResource, executionAsyncId } from 'node:async_hooks';
import { onAbort, type PolicyFn } from '@breakwater/core';
import { invoke, NEVER_ABORTED } from '@breakwater/core/internal';
import { HedgeAttempt, lostReason } from './hedge-attempt.js';
import type { HedgeRecorder } from './hedge-recorder.js';
import type { DueCall } from './hedge-timer.js';

/** Running: no outcome chosen yet. Decided: an outcome is chosen, waiting for the other attempts to settle. */
const RUNNING = 0;
const DECIDED = 1;
/** Finished: every attempt settled, the caller has the decided outcome. Aborted: the caller aborted. */
const FINISHED = 2;
const ABORTED = 3;

/**
 * One hedged call, read top to bottom (contract: docs/hedging.md): the primary starts; after
 * `delay` without an answer, or at once after a handled failure, the next attempt starts (each
 * with its own signal and `attempt`, each hedge allowed by the budget); the first outcome that is
 * not handled wins and every other attempt's signal aborts; when every attempt has failed the
 * primary's outcome is the call's. The caller gets it once every attempt has settled (no orphan
 * left running), or at once with the reason when it aborts (every attempt's signal aborts too).
 * Its delay is kept by the hedge's one timer ({@link HedgeTimer}): a call is linked there while
 * its delay runs, so a call answered in time sets no timer of its own.
 */
export class HedgedCall<T> extends AsyncResource implements DueCall {
  readonly promise: Promise<T>;
  // Its links in the hedge's timer list (DueCall).
  due = 0;
  prev: DueCall | undefined;
  next: DueCall | undefined;
  queued = false;
  readonly #recorder: HedgeRecorder;
  readonly #fn: PolicyFn<T>;
  /** The delay of this call's hedges, read once at its start (negative: only after a failure). */
  readonly #delayMs: number;
  /** When the call started (a percentile delay records its duration), else NaN. */
  readonly #startMs: number;
  /** What settles the caller's promise when the primary settles before the other attempts. */
  #resolveRest: ((value: T) => void) | undefined;
  #rejectRest: ((error: unknown) => void) | undefined;
  /** The primary's context, and the hedged attempts' (made at the first hedge). */
  #primary: HedgeAttempt | undefined;
  #hedges: HedgeAttempt[] | undefined;
  #state = RUNNING;
  #started = 0;
  #settled = 0;
  #refused = false;
  /**
   * The outcome the caller gets, once decided: attempt `#winner`'s. Before that, the primary's
   * once it failed (handled): the caller's if every attempt fails.
   */
  #winner = 0;
  #winnerOk = false;
  #winnerValue: unknown;
  #successful = false;
  #stopAbort: (() => void) | undefined;
  constructor(recorder: HedgeRecorder, fn: PolicyFn<T>, signal: AbortSignal) {
    // The call is an async resource of its own: it captures the async context the call starts in
    // (its AsyncLocalStorage stores: a trace's active span, a request's logger). The hedge's one
    // timer fires in the context of whichever call armed it, so a hedge started by the delay runs
    // in this one (onDue). Cheaper than an AsyncResource beside the call (one object, and the
    // trigger given rather than looked up).
    super('breakwater.hedge', executionAsyncId());
    this.#recorder = recorder;
    this.#fn = fn;
    const config = recorder.config;
    let now: number;
    if (config.delay.kind === 'fixed') {
      this.#delayMs = config.delay.ms;
      this.#startMs = Number.NaN;
      now = this.#delayMs > 0 ? config.clock.now() : 0;
    } else {
      now = this.#startMs = config.clock.now();
      this.#delayMs = recorder.delay.current(now);
    }
    if (signal === NEVER_ABORTED) {
      // No abort to race: the caller's promise is the one following the primary (no promise of
      // its own when the primary settles last, as it does when no hedge started).
      const primary = this.#launch();
      this.promise = recorder.lend(this)
        ? (primary.then(recorder.onPrimaryValue, recorder.onPrimaryError) as Promise<T>)
        : primary.then(
            (value) => this.afterPrimary(true, value),
            (error: unknown) => this.afterPrimary(false, error),
          );
    } else {
      // A promise of its own, which the caller's abort rejects at once.
      this.promise = new Promise<T>((resolve, reject) => {
        this.#resolveRest = resolve;
        this.#rejectRest = reject;
      });
      this.#stopAbort = onAbort(signal, () => this.#onCallerAbort(signal.reason));
      this.#follow(1, this.#launch());
    }
    if (this.#delayMs === 0) {
      while (this.#state === RUNNING && this.#started < this.#recorder.maxAttempts && !this.#refused) this.#hedge('delay');
    } else this.#armTimer(now);
  }

  /** Starts the next attempt with a context of its own; returns its outcome. */
  #launch(): Promise<T> {
    const attempt = ++this.#started;
    const ctx = new HedgeAttempt(attempt);
    if (attempt === 1) this.#primary = ctx;
    else (this.#hedges ??= []).push(ctx);
    return invoke(this.#fn, ctx);
  }

  #follow(attempt: number, outcome: Promise<T>): void {
    outcome.then(
      (value) => this.#onOutcome(attempt, true, value),
      (error: unknown) => this.#onOutcome(attempt, false, error),
    );
  }

  /**
   * The primary of a call without a signal settled: the call's outcome if every attempt has
   * settled (it throws the error), else a promise of it, which {@link #finish} settles.
   */
  afterPrimary(ok: boolean, value: unknown): T | Promise<T> {
    this.#onOutcome(1, ok, value);
    if (this.#state === FINISHED) {
      if (this.#winnerOk) return this.#winnerValue as T;
      throw this.#winnerValue;
    }
    return new Promise<T>((resolve, reject) => {
      this.#resolveRest = resolve;
      this.#rejectRest = reject;
    });
  }

  /** After a positive delay from `now`, the next attempt unless an answer came first. */
  #armTimer(now: number): void {
    const timer = this.#recorder.timer;
    timer.remove(this);
    if (this.#delayMs > 0 && this.#state === RUNNING && this.#started < this.#recorder.maxAttempts && !this.#refused) {
      timer.add(this, now + this.#delayMs, now);
    }
  }

  /** The delay elapsed with no outcome chosen (the hedge's timer calls it, the call unlinked): the hedge starts in the call's own async context. */
  onDue(): void {
    this.runInAsyncScope(this.#hedgeByDelay, this);
  }

  #hedgeByDelay(): void {
    this.#hedge('delay');
  }

  /** Starts a hedged attempt if the call is still running, has attempts left and the budget allows one. */
  #hedge(reason: 'delay' | 'failure'): void {
    if (this.#state !== RUNNING || this.#started >= this.#recorder.maxAttempts || this.#refused) return;
    const attempt = this.#started + 1;
    const budget = this.#recorder.config.budget;
    if (budget !== undefined && !tryTake(budget)) {
      this.#refused = true;
      this.#recorder.refused(attempt);
      this.#recorder.timer.remove(this);
      return;
    }
    this.#recorder.hedging(attempt, reason === 'delay' ? Math.max(0, this.#delayMs) : 0, reason);
    if (this.#state !== RUNNING) return; // onHedging or a listener aborted the caller
    this.#follow(attempt, this.#launch());
    if (this.#delayMs > 0) this.#armTimer(this.#recorder.config.clock.now());
  }

  #onOutcome(attempt: number, ok: boolean, value: unknown): void {
    this.#settled++;
    if (this.#state === RUNNING) {
      if (!this.#recorder.handles(ok, value)) this.#decide(attempt, ok, value, ok);
      else {
        if (attempt === 1) {
          this.#winnerOk = ok;
          this.#winnerValue = value;
        }
        this.#hedge('failure');
        // Every attempt started has failed and none can start: the primary's outcome.
        if (this.#state === RUNNING && this.#settled === this.#started) this.#decide(1, this.#winnerOk, this.#winnerValue, false);
      }
    }
    if (this.#state === DECIDED && this.#settled === this.#started) this.#finish();
  }

  /** The caller will get attempt `winner`'s outcome: no more attempts, every other one aborted. */
  #decide(winner: number, ok: boolean, value: unknown, successful: boolean): void {
    this.#state = DECIDED;
    this.#winner = winner;
    this.#winnerOk = ok;
    this.#winnerValue = value;
    this.#successful = successful;
    this.#recorder.timer.remove(this);
    if (successful && !Number.isNaN(this.#startMs)) {
      const now = this.#recorder.config.clock.now();
      this.#recorder.delay.record(now - this.#startMs, now);
    }
    if (this.#started > 1) {
      if (winner !== 1) this.#primary?.abort(lostReason(1, winner));
      for (const h of this.#hedges!) if (h.attempt !== winner) h.abort(lostReason(h.attempt, winner));
    }
  }

  /** Every attempt has settled: the caller gets the decided outcome. */
  #finish(): void {
    this.#state = FINISHED;
    this.#stopAbort?.();
    this.#recorder.ended(this.#started, this.#winner, this.#successful, this.#winnerValue);
    // Settled by the primary's handler when the primary settles last, else by these.
    if (this.#winnerOk) this.#resolveRest?.(this.#winnerValue as T);
    else this.#rejectRest?.(this.#winnerValue);
  }

  /** The caller aborted: it gets the reason at once; every attempt's signal aborts, none starts. */
  #onCallerAbort(reason: unknown): void {
    if (this.#state >= FINISHED) return;
    this.#state = ABORTED;
    this.#stopAbort?.();
    this.#recorder.timer.remove(this);
    this.#primary?.abort(reason);
    if (this.#hedges !== undefined) for (const h of this.#hedges) h.abort(reason);
    this.#recorder.aborted(this.#started, reason);
    this.#rejectRest!(reason);
  }
}

/** Takes a hedge from the budget; a budget whose clock throws refuses it. */
function tryTake(budget: { tryRetry(): boolean }): boolean {
  try {
    return budget.tryRetry();
  } catch {
    return false;
  }
}
