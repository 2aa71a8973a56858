import type { Phase, Traffic } from './scenario.js';

/** Where the arrivals of a run stand: the next open-loop arrival and the requests sent per phase. */
export class Arrivals {
  /** When the next arrival (or the start of a closed-loop phase) is due; Infinity when none is left. */
  nextAt = Infinity;
  /** The phase `nextAt` belongs to (for a trace: the entry's index). */
  phase = -1;
  /** Requests sent so far, per phase. */
  readonly sent: number[];
  readonly phases: readonly Phase[];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly #traceAt: readonly number[] | undefined;
  #traceNext = 0;

  constructor(
    traffic: Traffic,
    readonly random: () => number,
  ) {
    if (traffic.kind === 'trace') {
      const last = traffic.entries.at(-1)?.atMs ?? 0;
      this.phases = [];
      this.starts.push(0);
      this.ends.push(last + 1);
      this.#traceAt = traffic.entries.map((e) => e.atMs);
      this.sent = [0];
      this.phase = 0;
      this.nextAt = this.#traceAt.length > 0 ? this.#traceAt[0]! : Infinity;
      return;
    }
    this.phases = traffic.phases;
    let t = 0;
    for (const p of traffic.phases) {
      this.starts.push(t);
      t += p.durationMs;
      this.ends.push(t);
    }
    this.sent = traffic.phases.map(() => 0);
    this.#enter(0);
  }

  /** For a trace: the entry the arrival due now replays. */
  get traceIndex(): number {
    return this.#traceAt === undefined ? -1 : this.#traceNext;
  }

  /** Whether the due arrival starts a closed-loop phase (all its users at once). */
  get closed(): boolean {
    return this.#traceAt === undefined && this.phases[this.phase]!.arrivals === 'closed';
  }

  /** Counts the arrival due now and moves to the next one. */
  advance(): void {
    const at = this.#traceAt;
    if (at !== undefined) {
      this.sent[0]!++;
      this.#traceNext++;
      this.nextAt = this.#traceNext < at.length ? at[this.#traceNext]! : Infinity;
      return;
    }
    const p = this.phase;
    const phase = this.phases[p]!;
    if (phase.arrivals === 'closed') return this.#enter(p + 1); // the engine sends the users' first requests
    const n = ++this.sent[p]!;
    const next = phase.arrivals === 'constant' ? this.starts[p]! + (n * 1000) / phase.rate : this.nextAt + this.#gap(phase.rate);
    if (next >= this.ends[p]! || n >= phase.maxRequests) this.#enter(p + 1);
    else this.nextAt = next;
  }

  /** A closed-loop user's request ended at `now`: when it sends the next one, or -1 (its phase is over). */
  nextForUser(p: number, now: number): number {
    const phase = this.phases[p]!;
    const at = now + phase.thinkTimeMs;
    return at < this.ends[p]! && this.sent[p]! < phase.maxRequests ? at : -1;
  }

  /** Counts a closed-loop request of phase `p` (false: the phase's limit is reached). */
  sendClosed(p: number): boolean {
    if (this.sent[p]! >= this.phases[p]!.maxRequests) return false;
    this.sent[p]!++;
    return true;
  }

  /** The phase time `t` falls in (the last one after the end), moving on from `from`. */
  phaseAt(t: number, from: number): number {
    let p = from;
    while (p < this.ends.length - 1 && t >= this.ends[p]!) p++;
    return p;
  }

  #gap(rate: number): number {
    return (-Math.log(1 - this.random()) * 1000) / rate;
  }

  #enter(p: number): void {
    for (; p < this.phases.length; p++) {
      const phase = this.phases[p]!;
      if (phase.arrivals === 'none' || phase.maxRequests <= 0) continue;
      const start = this.starts[p]!;
      const first = phase.arrivals === 'poisson' ? start + this.#gap(phase.rate) : start;
      if (first >= this.ends[p]!) continue;
      this.phase = p;
      this.nextAt = first;
      return;
    }
    this.phase = -1;
    this.nextAt = Infinity;
  }
}
