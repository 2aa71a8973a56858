import { normal, Z99 } from './random.js';
import type { Backend, Latency, TraceEntry, Traffic } from './scenario.js';

/** What a backend call does: answer, fail, or never answer. */
export const OK = 0;
export const ERROR = 1;
export const HANG = 2;

/** A latency distribution made ready to draw from (its log-normal parameters computed once). */
class LatencyDraw {
  readonly #kind: number;
  readonly #a: number;
  readonly #b: number;
  readonly #whole: boolean;

  constructor(latency: Latency) {
    if (latency.kind === 'fixed') {
      this.#kind = 0;
      this.#a = latency.ms;
      this.#b = 0;
    } else if (latency.kind === 'uniform') {
      this.#kind = 1;
      this.#a = latency.min;
      this.#b = latency.max;
    } else {
      this.#kind = 2;
      this.#a = Math.log(latency.p50);
      this.#b = Math.log(latency.p99 / latency.p50) / Z99;
    }
    this.#whole = Number.isInteger(this.#a) && Number.isInteger(this.#b);
  }

  draw(random: () => number): number {
    if (this.#kind === 0) return this.#a;
    if (this.#kind === 1) {
      return this.#whole ? this.#a + Math.floor(random() * (this.#b - this.#a + 1)) : this.#a + random() * (this.#b - this.#a);
    }
    return Math.exp(this.#a + this.#b * normal(random));
  }
}

/**
 * Draws backend calls: `draw()` returns the latency and leaves the outcome in `outcome`
 * (no object per call). One per phase.
 */
export class BackendDraw {
  outcome = OK;
  readonly #errorRatio: number;
  readonly #hangRatio: number;
  readonly #latency: LatencyDraw;
  readonly #errorLatency: LatencyDraw;
  readonly #slowRatio: number;
  readonly #slowLatency: LatencyDraw;

  constructor(backend: Backend) {
    this.#errorRatio = backend.errorRatio;
    this.#hangRatio = backend.hangRatio;
    this.#latency = new LatencyDraw(backend.latency);
    this.#errorLatency = new LatencyDraw(backend.errorLatency);
    this.#slowRatio = backend.slowRatio ?? 0;
    this.#slowLatency = new LatencyDraw(backend.slowLatency ?? backend.latency);
  }

  draw(random: () => number): number {
    if (this.#hangRatio > 0 && random() < this.#hangRatio) {
      this.outcome = HANG;
      return Infinity;
    }
    if (this.#errorRatio > 0 && random() < this.#errorRatio) {
      this.outcome = ERROR;
      return this.#errorLatency.draw(random);
    }
    this.outcome = OK;
    // A draw more only when the phase has a slow tail: the scenarios without one draw as they always did.
    if (this.#slowRatio > 0 && random() < this.#slowRatio) return this.#slowLatency.draw(random);
    return this.#latency.draw(random);
  }
}

const CODES = { ok: OK, error: ERROR, hang: HANG } as const;

/**
 * A recorded trace as the backend: call `i` of the trace (its first attempt) gets entry `i`;
 * a later attempt (a retry) at time `t` gets the first entry recorded at or after `t` (the last
 * one past the end), i.e. what the backend did at that moment of the recording.
 */
export class TraceDraw {
  outcome = OK;
  #cursor = 0;

  constructor(readonly entries: readonly TraceEntry[]) {}

  /** Entry `index` of the trace. */
  entry(index: number): number {
    const e = this.entries[index]!;
    this.outcome = CODES[e.outcome];
    return e.outcome === 'hang' ? Infinity : e.latencyMs;
  }

  /** What the backend did at time `now` of the recording. */
  at(now: number): number {
    const entries = this.entries;
    while (this.#cursor < entries.length - 1 && entries[this.#cursor]!.atMs < now) this.#cursor++;
    return this.entry(this.#cursor);
  }
}

/**
 * The backend of one run: answers each call from the trace (a request's own entry first, then
 * the entry at that time) or from the draws of the phase it starts in. `call()` returns the
 * latency and leaves the outcome (OK, ERROR, HANG) in `outcome`.
 */
export class BackendCalls {
  outcome = OK;
  /** The phase calls start in now (the engine moves it with the clock). */
  phase = 0;
  readonly #draws: BackendDraw[];
  readonly #trace: TraceDraw | undefined;
  readonly #random: () => number;

  constructor(traffic: Traffic, random: () => number) {
    this.#draws = traffic.kind === 'phases' ? traffic.phases.map((p) => new BackendDraw(p.backend)) : [];
    this.#trace = traffic.kind === 'trace' ? new TraceDraw(traffic.entries) : undefined;
    this.#random = random;
  }

  /** A call of request `root` starts at `now`. */
  call(root: { usedTrace: boolean; traceIndex: number }, now: number): number {
    const trace = this.#trace;
    if (trace !== undefined) {
      const latency = !root.usedTrace && root.traceIndex >= 0 ? trace.entry(root.traceIndex) : trace.at(now);
      root.usedTrace = true;
      this.outcome = trace.outcome;
      return latency;
    }
    const draw = this.#draws[this.phase]!;
    const latency = draw.draw(this.#random);
    this.outcome = draw.outcome;
    return latency;
  }
}
