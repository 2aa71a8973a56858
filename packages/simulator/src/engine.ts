import type { CircuitBreaker } from '@breakwater/circuit-breaker';
import type { VirtualClock } from '@breakwater/core';
import type { Retry } from '@breakwater/retry';
import { Arrivals } from './arrivals.js';
import { BackendCalls, HANG, OK } from './backend.js';
import { Tally } from './counts.js';
import { ARRIVE, C_ERROR, C_FULL, C_LIMITED, C_OK, C_REJECTED, C_TIMEOUT, DONE, EXPIRE, Frame, FrameHeap, GRANT, NONE, TIMEOUT, WAKE } from './frame.js';
import { LimiterGate, type BulkheadGate } from './gates.js';
import { LayerTable } from './layer-table.js';
import { retryWait } from './retry-wait.js';
import { breakerOf, type BuiltLayer } from './pipeline.js';
import type { Traffic } from './scenario.js';
import { OUTCOMES, type EngineOptions, type EngineResult, type RunObserver, type RunView } from './engine-types.js';
import type { StateChange } from './report.js';
import { SeriesRecorder } from './series.js';
import { count, LIMITS, SimulationLimitError } from './limits.js';
import { formatMs } from './format.js';

/**
 * Runs `traffic` through `layers` (real Breakwater components on `options.clock`), event by
 * event: arrivals, backend answers, time-outs and retry waits on one heap, the clock moved to
 * each event's time (`VirtualClock.set`, so the breaker's own timers fire in order). The
 * circuit breaker is the real one, driven through its permission API (`tryAcquirePermission`,
 * `onSuccess`, `onError`); so are the rate limiter (a wait for a permit is a GRANT event; see
 * {@link LimiterGate}) and the bulkhead's slots (`tryAcquirePermission`, `onComplete`; its FIFO of waiters
 * is a {@link BulkheadGate}). Retry and time limiter follow their resolved configs (attempts,
 * waits, what is retried, time-outs, cancellation) without a promise per call.
 */
export function runEngine(traffic: Traffic, layers: readonly BuiltLayer[], options: EngineOptions): EngineResult {
  return new Run(traffic, layers, options).run();
}

class Run implements RunView {
  readonly clock: VirtualClock;
  requests = 0;
  backendCalls = 0;
  timeouts = 0;
  readonly #n: number;
  readonly #kinds: number[];
  readonly #retries: (Retry | undefined)[];
  readonly #retryable: boolean[][];
  readonly #breakers: (CircuitBreaker | undefined)[];
  readonly #timeouts: number[];
  readonly #cancels: boolean[];
  readonly #limiters: (LimiterGate | undefined)[];
  readonly #gates: (BulkheadGate | undefined)[];
  readonly #errors: readonly unknown[];
  readonly #heap = new FrameHeap();
  readonly #arrivals: Arrivals;
  readonly #backend: BackendCalls;
  readonly #tallies: Tally[];
  readonly #series: SeriesRecorder;
  readonly #transitions: StateChange[] = [];
  readonly #observer: RunObserver | undefined;
  readonly #progress: ((simulatedMs: number) => void) | undefined;
  readonly #intervalState = { random: Math.random, previousWaitMs: 0 };
  readonly #maxPending: number;

  constructor(traffic: Traffic, layers: readonly BuiltLayer[], options: EngineOptions) {
    this.clock = options.clock;
    this.#intervalState.random = options.random;
    this.#observer = options.observer;
    this.#progress = options.progress;
    this.#n = layers.length;
    const t = new LayerTable(layers);
    [this.#kinds, this.#retries, this.#retryable, this.#breakers, this.#errors] = [t.kinds, t.retries, t.retryable, t.breakers, t.errors];
    [this.#timeouts, this.#cancels, this.#limiters, this.#gates] = [t.timeouts, t.cancels, t.limiters, t.gates];
    this.#arrivals = new Arrivals(traffic, options.arrivalRandom);
    this.#backend = new BackendCalls(traffic, options.random);
    this.#tallies = this.#arrivals.starts.map(() => new Tally());
    const breaker = breakerOf(layers);
    this.#series = new SeriesRecorder(options.bucketMs, breaker, options.maxBuckets);
    this.#maxPending = options.maxPending ?? LIMITS.maxPending;
    breaker?.on('stateTransition', (e) => {
      const change: StateChange = { atMs: e.at, from: e.from, to: e.to, cause: e.cause };
      this.#transitions.push(change);
      this.#observer?.stateChanged?.(change, this);
    });
  }

  run(): EngineResult {
    const heap = this.#heap;
    const arrivals = this.#arrivals;
    let events = 0;
    for (;;) {
      const top = heap.peek();
      const heapAt = top === undefined ? Infinity : top.due;
      const arrivalAt = arrivals.nextAt;
      if (arrivalAt === Infinity && heapAt === Infinity) break;
      if (arrivalAt <= heapAt) {
        this.#moveTo(arrivalAt);
        this.#arrive();
      } else {
        heap.pop();
        this.#moveTo(heapAt);
        this.#fire(top!);
      }
      if ((++events & 0x3fff) === 0) {
        if (heap.size > this.#maxPending) this.#tooManyPending(heap.size);
        this.#progress?.(this.clock.now());
      }
    }
    const endMs = Math.max(this.#arrivals.ends.at(-1) ?? 0, this.clock.now());
    const series = this.#series;
    while (series.start < endMs) {
      if (series.nextEnd !== Infinity) {
        this.#closeBucket();
        continue;
      }
      // The last bucket (the series is at its cap): it runs to the end of the run, and at least its width.
      const end = Math.max(endMs, series.start + series.bucketMs);
      if (end > this.clock.now()) this.clock.set(end);
      series.close(end);
    }
    for (const t of this.#tallies) t.unfinished = t.requests - t.succeeded - t.failed - t.rejected;
    this.#observer?.finished?.(this);
    return { tallies: this.#tallies, transitions: this.#transitions, series: this.#series.result(), endMs };
  }

  #tooManyPending(pending: number): never {
    throw new SimulationLimitError(
      `${count(pending)} events pending at ${formatMs(this.clock.now())} of simulated time (requests in flight, time-outs, waits); ` +
        `a run holds at most ${count(this.#maxPending)}: the traffic keeps more requests waiting than memory can hold ` +
        '(rate × latency) — a lower rate, a shorter latency, or a time limiter',
    );
  }

  #closeBucket(): void {
    if (this.#series.nextEnd > this.clock.now()) this.clock.set(this.#series.nextEnd);
    this.#series.close();
  }

  #moveTo(t: number): void {
    while (this.#series.nextEnd <= t) this.#closeBucket();
    if (t > this.clock.now()) this.clock.set(t);
    this.#backend.phase = this.#arrivals.phaseAt(t, this.#backend.phase);
  }

  #arrive(): void {
    const arrivals = this.#arrivals;
    const p = arrivals.phase;
    if (arrivals.closed) {
      const users = arrivals.phases[p]!.users;
      arrivals.advance();
      for (let u = 0; u < users && arrivals.sendClosed(p); u++) this.#begin(Frame.request(p, u, -1));
      return;
    }
    const traceIndex = arrivals.traceIndex;
    arrivals.advance();
    this.#begin(Frame.request(p, -1, traceIndex));
  }

  #begin(root: Frame): void {
    root.index = this.requests++;
    this.#tallies[root.phase]!.requests++;
    this.#series.requests++;
    this.#spawn(root);
  }

  #fire(frame: Frame): void {
    const event = frame.event;
    frame.event = NONE;
    if (event === DONE) this.#complete(frame, frame.code);
    else if (event === TIMEOUT) this.#timeOut(frame);
    else if (event === WAKE) this.#nextAttempt(frame);
    else if (event === ARRIVE) this.#begin(frame);
    else if (event === GRANT) this.#spawn(LimiterGate.granted(frame));
    else if (event === EXPIRE) {
      this.#gates[frame.layer]!.leave(frame);
      this.#complete(frame, C_FULL);
    }
  }

  /** Starts the layer below `parent`. */
  #spawn(parent: Frame): void {
    const frame = new Frame(parent.layer + 1, parent, parent.root);
    parent.child = frame;
    const layer = frame.layer;
    if (layer === this.#n) return this.#callBackend(frame);
    const kind = this.#kinds[layer]!;
    if (kind === 0) {
      frame.attempt = 1;
      return this.#spawn(frame);
    }
    if (kind === 1) {
      this.#tallies[frame.phase]!.breakerCalls++;
      if (!this.#breakers[layer]!.tryAcquirePermission()) return this.#complete(frame, C_REJECTED);
      frame.startedAt = this.clock.now();
      return this.#spawn(frame);
    }
    if (kind === 3) {
      const wait = this.#limiters[layer]!.enter(frame);
      if (wait < 0) return this.#complete(frame, C_LIMITED);
      if (wait > 0) return this.#heap.push(frame, this.clock.now() + wait, GRANT);
      return this.#spawn(frame);
    }
    if (kind === 4) {
      const gate = this.#gates[layer]!;
      const admitted = gate.enter(frame);
      if (admitted < 0) return this.#complete(frame, C_FULL);
      if (admitted === 0) return this.#heap.push(frame, this.clock.now() + gate.maxWait, EXPIRE);
      return this.#spawn(frame);
    }
    this.#heap.push(frame, this.clock.now() + this.#timeouts[layer]!, TIMEOUT);
    this.#spawn(frame);
  }

  #callBackend(frame: Frame): void {
    this.backendCalls++;
    const backend = this.#backend;
    const latency = backend.call(frame.root, this.clock.now());
    if (backend.outcome === HANG) return; // never answers, unless a time limiter cancels it
    frame.code = backend.outcome === OK ? C_OK : C_ERROR;
    this.#heap.push(frame, this.clock.now() + latency, DONE);
  }

  /** `frame` is done with `code`: its parent reacts. */
  #complete(frame: Frame, code: number): void {
    frame.settled = true;
    const parent = frame.parent!;
    if (parent.child === frame) parent.child = null;
    if (parent.layer < 0) return this.#ended(parent, code);
    const layer = parent.layer;
    const kind = this.#kinds[layer]!;
    if (kind === 0) return this.#retryDecides(parent, code);
    if (kind === 1) {
      const breaker = this.#breakers[layer]!;
      // A call cancelled from above (a time limiter outside the breaker) says nothing about the
      // backend: as the breaker's execute does, its permit is given back and nothing is recorded.
      if (parent.aborted) {
        breaker.releasePermission();
        return this.#complete(parent, code);
      }
      const elapsed = this.clock.now() - parent.startedAt;
      if (code === C_OK) breaker.onSuccess(elapsed);
      else breaker.onError(elapsed, this.#errors[code]);
      if (code !== C_TIMEOUT && elapsed > breaker.config.slowCallDurationThreshold) {
        const state = breaker.state;
        if (state !== 'DISABLED' && state !== 'FORCED_OPEN') this.#tallies[parent.phase]!.slow++;
      }
      return this.#complete(parent, code);
    }
    if (kind === 4) {
      // The slot comes back when the call below settles (even one a time limiter above gave up on), to the oldest waiter.
      const next = this.#gates[layer]!.release();
      if (next !== null) {
        this.#heap.remove(next);
        this.#spawn(next);
      }
      return this.#complete(parent, code);
    }
    if (kind === 3) return this.#complete(parent, code);
    if (parent.settled) return; // a time limiter that already timed out drops the late outcome
    this.#heap.remove(parent);
    this.#complete(parent, code);
  }

  #retryDecides(frame: Frame, code: number): void {
    const layer = frame.layer;
    const retry = this.#retries[layer]!;
    if (code === C_OK || frame.aborted || frame.attempt >= retry.config.maxAttempts || !this.#retryable[layer]![code]) {
      return this.#complete(frame, code);
    }
    const wait = retryWait(retry, frame.attempt, frame.previousWaitMs, this.#errors[code], this.#intervalState);
    frame.previousWaitMs = wait;
    if (wait > 0) this.#heap.push(frame, this.clock.now() + wait, WAKE);
    else this.#nextAttempt(frame);
  }

  #nextAttempt(frame: Frame): void {
    frame.attempt++;
    this.#tallies[frame.phase]!.retries++;
    this.#spawn(frame);
  }

  /** A time limiter gives up: it cancels what runs below it (as `cancelRunningFuture` does), then fails its caller. */
  #timeOut(frame: Frame): void {
    this.timeouts++;
    this.#tallies[frame.phase]!.timeouts++;
    frame.settled = true;
    if (this.#cancels[frame.layer]) {
      let deepest = frame.child;
      for (let f = deepest; f !== null; f = f.child) {
        f.aborted = true;
        deepest = f;
      }
      if (deepest !== null) {
        this.#heap.remove(deepest);
        if (deepest.queued) this.#gates[deepest.layer]!.leave(deepest); // a bulkhead waiter leaves the queue at once
        if (deepest.waiter !== null) LimiterGate.abort(deepest, this.#errors[C_TIMEOUT]); // a rate limiter's waiter hands its permit back
        this.#complete(deepest, C_TIMEOUT); // the abort's reason is the TimeoutError
      }
    }
    this.#complete(frame, C_TIMEOUT);
  }

  #ended(root: Frame, code: number): void {
    const tally = this.#tallies[root.phase]!;
    const series = this.#series;
    if (code === C_OK) tally.succeeded++;
    else if (code >= C_REJECTED) {
      tally.rejected++;
      series.rejected++;
    } else {
      tally.failed++;
      series.failed++;
    }
    this.#observer?.requestEnded?.(root.index, OUTCOMES[code]!, this);
    if (root.user >= 0) {
      const at = this.#arrivals.nextForUser(root.phase, this.clock.now());
      if (at >= 0 && this.#arrivals.sendClosed(root.phase)) {
        const next = Frame.request(root.phase, root.user, -1);
        this.#heap.push(next, at, ARRIVE);
      }
    }
  }
}
