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
 * What a call holds only once it is more than its primary: a hedged attempt started (or the
 * budget refused one), a handled failure asks for the next, or its caller can abort it. Made
 * then, so that a call whose primary answers alone — nearly every call — carries none of it.
 */
class Race<T> {
  /** The hedged attempts' contexts: attempts 2, 3, …, in order. */
  readonly hedges: HedgeAttempt[] = [];
  /** Attempts settled so far. */
  settled = 0;
  /** The budget refused a hedge: no other starts. */
  refused = false;
  /**
   * The outcome the caller gets, once decided: attempt `winner`'s. Before that, the primary's
   * once it failed (handled): the caller's if every attempt fails.
   */
  winner = 0;
  winnerOk = false;
  winnerValue: unknown;
  successful = false;
  /** What settles the caller's promise when it is not the primary's own follower. */
  resolve: ((value: T) => void) | undefined;
  reject: ((error: unknown) => void) | undefined;
  /** Ends the watch on the caller's signal. */
  stopAbort: (() => void) | undefined;

  /** A promise of the caller's outcome that {@link resolve} and {@link reject} settle. */
  later(): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

/**
 * One hedged call, read top to bottom (contract: docs/hedging.md): the primary starts; after
 * `delay` without an answer, or at once after a handled failure, the next attempt starts (each
 * with its own signal and `attempt`, each hedge allowed by the budget); the first outcome that is
 * not handled wins and every other attempt's signal aborts; when every attempt has failed the
 * primary's outcome is the call's. The caller gets it once every attempt has settled (no orphan
 * left running), or at once with the reason when it aborts (every attempt's signal aborts too).
 * Its delay is kept by the hedge's one timer ({@link HedgeTimer}): a call is linked there while
 * its delay runs, so a call answered in time sets no timer of its own.
 *
 * A call whose primary answers alone ends in {@link afterPrimary}'s first branch and carries only
 * the fields here; everything a second attempt or a caller's abort needs is its {@link Race}.
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
  /** The primary's context. */
  readonly #primary: HedgeAttempt;
  #race: Race<T> | undefined;
  #state = RUNNING;

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
    this.#primary = new HedgeAttempt(1);
    this.promise = signal === NEVER_ABORTED ? this.#followPrimary(recorder) : this.#raceCaller(signal);
    if (this.#delayMs > 0) {
      if (this.#state === RUNNING) recorder.timer.add(this, now + this.#delayMs, now);
    } else if (this.#delayMs === 0) this.#hedgeAtOnce();
  }

  /**
   * No caller's abort to race: starts the primary and answers the promise following it (no
   * promise of its own when the primary settles last, as it does when no hedge started).
   */
  #followPrimary(recorder: HedgeRecorder): Promise<T> {
    const primary = invoke(this.#fn, this.#primary);
    if (recorder.lend(this)) return primary.then(recorder.onPrimaryValue, recorder.onPrimaryError) as Promise<T>;
    return primary.then(
      (value) => this.afterPrimary(true, value),
      (error: unknown) => this.afterPrimary(false, error),
    );
  }

  /** A caller's signal: a promise of the call's own, which the caller's abort rejects at once; then the primary starts. */
  #raceCaller(signal: AbortSignal): Promise<T> {
    const race = (this.#race = new Race<T>());
    const promise = race.later();
    race.stopAbort = onAbort(signal, () => this.#onCallerAbort(signal.reason));
    this.#follow(1, invoke(this.#fn, this.#primary));
    return promise;
  }

  /** A delay of 0: every hedge the budget allows starts now, beside the primary. */
  #hedgeAtOnce(): void {
    while (this.#state === RUNNING && this.#mayHedge()) this.#hedge('delay');
  }

  /** Attempts started so far. */
  get #started(): number {
    return this.#race === undefined ? 1 : 1 + this.#race.hedges.length;
  }

  /** Whether another attempt may start: one is left and the budget has not refused this call one. */
  #mayHedge(): boolean {
    return this.#race === undefined || (!this.#race.refused && this.#started < this.#recorder.maxAttempts);
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
    if (this.#race === undefined) {
      // Alone so far (no hedge started, no signal: still running). An outcome not handled is the
      // call's; a handled failure makes the call a race (the next attempt starts if it may).
      const handled = this.#recorder.handles(ok, value);
      if (!handled) {
        this.#state = FINISHED;
        this.#stopWaiting(ok);
        this.#recorder.ended(1, 1, ok, value);
        if (ok) return value as T;
        throw value;
      }
      this.#race = new Race<T>();
      this.#settle(1, ok, value, true);
    } else this.#onOutcome(1, ok, value);
    if (this.#state !== FINISHED) return this.#race.later();
    if (this.#race.winnerOk) return this.#race.winnerValue as T;
    throw this.#race.winnerValue;
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
    if (this.#state !== RUNNING || !this.#mayHedge()) return;
    const race = (this.#race ??= new Race<T>());
    const attempt = this.#started + 1;
    const budget = this.#recorder.config.budget;
    if (budget !== undefined && !tryTake(budget)) {
      race.refused = true;
      this.#recorder.refused(attempt);
      this.#recorder.timer.remove(this);
      return;
    }
    this.#recorder.hedging(attempt, reason === 'delay' ? Math.max(0, this.#delayMs) : 0, reason);
    if (this.#state !== RUNNING) return; // onHedging or a listener aborted the caller
    const ctx = new HedgeAttempt(attempt);
    race.hedges.push(ctx);
    this.#follow(attempt, invoke(this.#fn, ctx));
    if (this.#delayMs > 0) {
      const timer = this.#recorder.timer;
      timer.remove(this);
      if (this.#state === RUNNING && this.#mayHedge()) {
        const now = this.#recorder.config.clock.now();
        timer.add(this, now + this.#delayMs, now);
      }
    }
  }

  /** Attempt `attempt` of a race settled: counted, and its outcome weighed while no outcome is chosen. */
  #onOutcome(attempt: number, ok: boolean, value: unknown): void {
    this.#settle(attempt, ok, value, this.#state === RUNNING && this.#recorder.handles(ok, value));
  }

  /** Attempt `attempt` settled; `handled`: it is a failure to hedge past (read only while running). */
  #settle(attempt: number, ok: boolean, value: unknown, handled: boolean): void {
    const race = this.#race!;
    race.settled++;
    if (this.#state === RUNNING) {
      if (!handled) this.#decide(attempt, ok, value, ok);
      else {
        if (attempt === 1) {
          race.winnerOk = ok;
          race.winnerValue = value;
        }
        this.#hedge('failure');
        // Every attempt started has failed and none can start: the primary's outcome.
        if (this.#state === RUNNING && race.settled === this.#started) this.#decide(1, race.winnerOk, race.winnerValue, false);
      }
    }
    if (this.#state === DECIDED && race.settled === this.#started) this.#finish();
  }

  /** The caller will get attempt `winner`'s outcome: no more attempts, every other one aborted. */
  #decide(winner: number, ok: boolean, value: unknown, successful: boolean): void {
    const race = this.#race!;
    this.#state = DECIDED;
    race.winner = winner;
    race.winnerOk = ok;
    race.winnerValue = value;
    race.successful = successful;
    this.#stopWaiting(successful);
    if (winner !== 1) this.#primary.abort(lostReason(1, winner));
    for (const h of race.hedges) if (h.attempt !== winner) h.abort(lostReason(h.attempt, winner));
  }

  /** An outcome is chosen: the delay no longer runs; a successful call's duration is recorded (a percentile delay). */
  #stopWaiting(successful: boolean): void {
    this.#recorder.timer.remove(this);
    if (successful && !Number.isNaN(this.#startMs)) {
      const now = this.#recorder.config.clock.now();
      this.#recorder.delay.record(now - this.#startMs, now);
    }
  }

  /** Every attempt has settled: the caller gets the decided outcome. */
  #finish(): void {
    const race = this.#race!;
    this.#state = FINISHED;
    race.stopAbort?.();
    this.#recorder.ended(this.#started, race.winner, race.successful, race.winnerValue);
    // Settled by the primary's handler when the primary settles last, else by these.
    if (race.winnerOk) race.resolve?.(race.winnerValue as T);
    else race.reject?.(race.winnerValue);
  }

  /** The caller aborted: it gets the reason at once; every attempt's signal aborts, none starts. */
  #onCallerAbort(reason: unknown): void {
    if (this.#state >= FINISHED) return;
    const race = this.#race!;
    this.#state = ABORTED;
    race.stopAbort?.();
    this.#recorder.timer.remove(this);
    this.#primary.abort(reason);
    for (const h of race.hedges) h.abort(reason);
    this.#recorder.aborted(this.#started, reason);
    race.reject!(reason);
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
