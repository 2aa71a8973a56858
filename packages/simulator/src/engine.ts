import type { VirtualClock } from '@breakwater/core';
import { Arrivals } from './arrivals.js';
import { BackendCalls, HANG, OK } from './backend.js';
import { BackendQueue, OVERLOADED, SERVE } from './backend-queue.js';
import { Tally } from './counts.js';
import { ARRIVE, DONE, Frame, FrameHeap, NONE, WAKE } from './frame.js';
import { driverOf, type LayerDriver, type LayerHost } from './layers/index.js';
import { CODE, codeErrors, REQUEST_OUTCOMES } from './outcome-codes.js';
import { adaptiveLimiterOf, breakerOf, type BuiltLayer } from './pipeline.js';
import type { Traffic } from './scenario.js';
import type { EngineOptions, EngineResult, RunObserver, RunView } from './engine-types.js';
import type { StateChange } from './report.js';
import { SeriesRecorder } from './series.js';
import { count, LIMITS, SimulationLimitError } from './limits.js';
import { formatMs } from './format.js';

/**
 * Runs `traffic` through `layers` (real Breakwater components on `options.clock`), event by
 * event: arrivals, backend answers, time-outs and retry waits on one heap, the clock moved to
 * each event's time (`VirtualClock.set`, so the breaker's own timers fire in order). The
 * circuit breaker is the real one, driven through its permission API (`tryAcquirePermission`,
 * `onSuccess`, `onError`); so are the rate limiter (a wait for a permit is a wake-up; see
 * LimiterGate) and the bulkhead's slots (`tryAcquirePermission`, `onComplete`; its FIFO of waiters
 * is a BulkheadGate). Retry and time limiter follow their resolved configs (attempts,
 * waits, what is retried, time-outs, cancellation) without a promise per call. Each layer kind is
 * a driver (layers/): the engine starts and ends frames, the driver of a frame's layer decides.
 */
export function runEngine(traffic: Traffic, layers: readonly BuiltLayer[], options: EngineOptions): EngineResult {
  return new Run(traffic, layers, options).run();
}

class Run implements RunView, LayerHost {
  readonly clock: VirtualClock;
  requests = 0;
  backendCalls = 0;
  timeouts = 0;
  readonly errors: readonly unknown[] = codeErrors();
  readonly intervalState = { random: Math.random, previousWaitMs: 0 };
  readonly #n: number;
  /** One driver per layer, indexed by layer. */
  readonly #drivers: LayerDriver[];
  // Their methods as bound functions, indexed by layer: a call site that met five driver classes
  // would be megamorphic (about 20 % slower on a five-layer pipeline); an array of functions is not.
  readonly #enter: ((frame: Frame) => void)[];
  readonly #childEnded: ((frame: Frame, code: number, child: Frame) => void)[];
  readonly #wake: ((frame: Frame) => void)[];
  readonly #heap = new FrameHeap();
  readonly #arrivals: Arrivals;
  readonly #backend: BackendCalls;
  /** The backend's servers and queue, when a phase gives it a capacity (else null: every call is served at once). */
  readonly #queue: BackendQueue | null;
  /** The next phase boundary the backend's capacity may change at (Infinity without a capacity, or after the last). */
  #boundaryAt = Infinity;
  readonly #tallies: Tally[];
  readonly #series: SeriesRecorder;
  readonly #transitions: StateChange[] = [];
  readonly #observer: RunObserver | undefined;
  readonly #progress: ((simulatedMs: number) => void) | undefined;
  readonly #maxPending: number;

  constructor(traffic: Traffic, layers: readonly BuiltLayer[], options: EngineOptions) {
    this.clock = options.clock;
    this.intervalState.random = options.random;
    this.#observer = options.observer;
    this.#progress = options.progress;
    this.#n = layers.length;
    this.#drivers = layers.map((layer) => driverOf(layer, this));
    this.#enter = this.#drivers.map((d) => d.enter.bind(d));
    this.#childEnded = this.#drivers.map((d) => d.childEnded.bind(d));
    this.#wake = this.#drivers.map((d) => d.wake.bind(d));
    this.#arrivals = new Arrivals(traffic, options.arrivalRandom);
    this.#backend = new BackendCalls(traffic, options.random);
    this.#queue = traffic.kind === 'phases' && BackendQueue.needed(traffic.phases) ? new BackendQueue(traffic.phases) : null;
    if (this.#queue !== null) this.#boundaryAt = this.#arrivals.ends[0] ?? Infinity;
    this.#tallies = this.#arrivals.starts.map(() => new Tally());
    const wins = Math.max(0, ...layers.map((l) => (l.kind === 'hedge' ? l.hedge.config.maxHedgedAttempts + 1 : 0)));
    const chaos = layers.some((l) => l.kind === 'chaos');
    for (const t of this.#tallies) {
      t.hedgeWins = new Array<number>(wins).fill(0);
      t.chaos = chaos;
    }
    const breaker = breakerOf(layers);
    const limiter = adaptiveLimiterOf(layers);
    const queue = this.#queue;
    this.#series = new SeriesRecorder(options.bucketMs, breaker, options.maxBuckets, {
      limit: limiter && (() => limiter.limit),
      capacity: queue === null ? undefined : () => queue.capacity,
    });
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
      const boundaryAt = this.#boundaryAt;
      if (arrivalAt === Infinity && heapAt === Infinity && (boundaryAt === Infinity || this.#queue!.waiting === 0)) break;
      if (boundaryAt <= arrivalAt && boundaryAt <= heapAt) {
        // A phase starts: the backend's capacity may change (#moveTo applies it) even when nothing else happens then.
        this.#moveTo(boundaryAt);
        this.#boundaryAt = this.#arrivals.ends[this.#backend.phase] ?? Infinity;
        if (this.#boundaryAt === boundaryAt) this.#boundaryAt = Infinity;
      } else if (arrivalAt <= heapAt) {
        this.#moveTo(arrivalAt);
        this.#arrive();
      } else {
        heap.pop();
        this.#moveTo(heapAt);
        this.#fire(top!);
      }
      if ((++events & 0x3fff) === 0) {
        const pending = heap.size + (this.#queue?.waiting ?? 0);
        if (pending > this.#maxPending) this.#tooManyPending(pending);
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
    const backend = this.#backend;
    const phase = this.#arrivals.phaseAt(t, backend.phase);
    if (phase === backend.phase) return;
    backend.phase = phase;
    const queue = this.#queue;
    if (queue === null) return;
    queue.setPhase(phase);
    this.#serveWaiting(queue);
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
    root.startedAt = this.clock.now();
    this.#tallies[root.phase]!.requests++;
    this.#series.requests++;
    this.spawn(root);
  }

  #fire(frame: Frame): void {
    const event = frame.event;
    frame.event = NONE;
    if (event === DONE) {
      // A server frees up: the oldest waiting call starts before this answer reaches its caller (whose next call queues behind).
      const queue = this.#queue;
      if (queue !== null && frame.layer === this.#n) {
        queue.release();
        this.#serveWaiting(queue);
      }
      this.complete(frame, frame.code);
    } else if (event === WAKE) this.#wake[frame.layer]!(frame);
    else if (event === ARRIVE) this.#begin(frame);
  }

  now(): number {
    return this.clock.now();
  }

  tally(frame: Frame): Tally {
    return this.#tallies[frame.phase]!;
  }

  wakeAt(frame: Frame, atMs: number): void {
    this.#heap.push(frame, atMs, WAKE);
  }

  cancelWake(frame: Frame): void {
    this.#heap.remove(frame);
  }

  /** Starts the layer below `parent`. */
  spawn(parent: Frame): void {
    const frame = new Frame(parent.layer + 1, parent, parent.root);
    parent.child = frame;
    this.#start(frame);
  }

  /** Starts one more call below `parent`, beside those already running there (a hedge's attempt): `parent.children[slot]` until it ends. */
  spawnAt(parent: Frame, slot: number): void {
    const frame = new Frame(parent.layer + 1, parent, parent.root);
    frame.slot = slot;
    parent.children![slot] = frame;
    this.#start(frame);
  }

  #start(frame: Frame): void {
    const layer = frame.layer;
    if (layer === this.#n) return this.#callBackend(frame);
    this.#enter[layer]!(frame);
  }

  #callBackend(frame: Frame): void {
    this.backendCalls++;
    const backend = this.#backend;
    const latency = backend.call(frame.root, this.clock.now());
    const queue = this.#queue;
    if (queue !== null) {
      frame.code = backend.outcome === OK ? CODE.ok : CODE.error;
      frame.serviceMs = latency;
      const admitted = queue.enter(frame);
      if (admitted === SERVE) this.#serve(frame);
      else if (admitted === OVERLOADED) {
        this.#tallies[frame.phase]!.overloaded++;
        this.complete(frame, CODE.overloaded);
      }
      return;
    }
    if (backend.outcome === HANG) return; // never answers, unless a time limiter cancels it
    frame.code = backend.outcome === OK ? CODE.ok : CODE.error;
    this.#heap.push(frame, this.clock.now() + latency, DONE);
  }

  /** A backend call that holds a server: it answers after its service time (a hang never does, and keeps its server until cancelled). */
  #serve(frame: Frame): void {
    if (frame.serviceMs !== Infinity) this.#heap.push(frame, this.clock.now() + frame.serviceMs, DONE);
  }

  /** Starts waiting backend calls while servers are free. */
  #serveWaiting(queue: BackendQueue): void {
    for (let next = queue.next(); next !== null; next = queue.next()) this.#serve(next);
  }

  /** `frame` is done with `code`: its parent reacts. */
  complete(frame: Frame, code: number): void {
    frame.settled = true;
    const parent = frame.parent!;
    // One of several calls below its parent (a hedge's attempt) stays in `children`, settled: what it
    // left running below is cancelled with the other attempts. Another frame that ends with its call
    // still running below (a time limiter that gives up without cancelling, or a layer above one)
    // joins its parent's `children`: cancelled when its parent is, as the caller's signal reaches that call.
    if (frame.slot < 0) {
      if (parent.child === frame) parent.child = null;
      if (frame.child !== null || frame.children !== null) (parent.children ??= []).push(frame);
    }
    if (parent.layer < 0) return this.#ended(parent, code);
    this.#childEnded[parent.layer]!(parent, code, frame);
  }

  cancelBelow(frame: Frame, code: number): void {
    if (frame.child !== null) this.cancel(frame.child, code);
    const children = frame.children;
    if (children === null) return;
    // A hedge's attempts, or what frames below gave up on: each running one is cancelled, below each ended one what it left running.
    for (const child of children) {
      if (child === null) continue;
      if (!child.settled) this.cancel(child, code);
      else this.cancelBelow(child, code);
    }
  }

  cancel(frame: Frame, code: number): void {
    frame.aborted = true;
    if (frame.child !== null || running(frame.children)) return this.cancelBelow(frame, code);
    if (frame.children !== null) this.cancelBelow(frame, code); // a retry waiting to try again, say: what its earlier attempts left running
    // The deepest frame: what it waits for will not happen.
    this.#heap.remove(frame);
    // A waiter in a layer (a bulkhead's queue, a rate limiter's reserved permit) leaves it; the reason is the code's error.
    if (frame.layer < this.#n) this.#drivers[frame.layer]!.cancel(frame, this.errors[code]);
    else if (this.#queue !== null) {
      // A cancelled backend call leaves the queue, or frees its server for the oldest waiting call.
      const queue = this.#queue;
      if (frame.queued) queue.leave(frame);
      else {
        queue.release();
        this.#serveWaiting(queue);
      }
    }
    this.complete(frame, code);
  }

  #ended(root: Frame, code: number): void {
    const tally = this.#tallies[root.phase]!;
    const series = this.#series;
    const outcome = REQUEST_OUTCOMES[code]!;
    if (outcome === 'succeeded') {
      const latency = this.clock.now() - root.startedAt;
      tally.succeeded++;
      tally.latency.record(latency);
      series.succeeded++;
      series.latency.record(latency);
    } else if (outcome === 'rejected') {
      tally.rejected++;
      series.rejected++;
    } else {
      tally.failed++;
      series.failed++;
    }
    this.#observer?.requestEnded?.(root.index, outcome, this);
    if (root.user >= 0) {
      const at = this.#arrivals.nextForUser(root.phase, this.clock.now());
      if (at >= 0 && this.#arrivals.sendClosed(root.phase)) {
        const next = Frame.request(root.phase, root.user, -1);
        this.#heap.push(next, at, ARRIVE);
      }
    }
  }
}

/** Whether any of `frames` (a frame's `children`) is still running. */
function running(frames: readonly (Frame | null)[] | null): boolean {
  if (frames !== null) for (const f of frames) if (f !== null && !f.settled) return true;
  return false;
}
