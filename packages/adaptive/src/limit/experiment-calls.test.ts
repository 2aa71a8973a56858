// The call-by-call experiment ALGORITHMS.md reports, closer to a real service than the rounds of
// experiment.test.ts: requests arrive at twice the backend's throughput (gaps drawn uniformly
// around the mean), the limiter admits while `inFlight < limit` and refuses the rest at once; the
// backend serves `capacity` calls at once, each for `base · U(0.5, 1.5)` ms, queues up to 50 more
// FIFO and fails the rest fast (a drop). Every finished call is a sample, windowed or not. One
// seeded generator: the figures are the same on every run.

import { describe, expect, it } from 'vitest';
import type { LimitAlgorithm } from './algorithm.js';
import { aimd } from './aimd.js';
import { gradient2 } from './gradient2.js';
import { vegas } from './vegas.js';
import { windowed, type WindowedOptions } from './windowed.js';

interface Phase {
  readonly seconds: number;
  readonly capacity: number;
  readonly base: number;
}

interface Report {
  /** Calls served against what the capacity serves in the phase, %, rounded. */
  readonly goodput: number;
  /** The median latency of served calls against `base`, two decimals. */
  readonly p50: number;
  /** Seconds into the phase until the limit is first within [0.9, 1.5] × the capacity (tenths). */
  readonly within: number | undefined;
}

/** mulberry32: a small seeded generator. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Calls in service, by the time they finish (a binary min-heap). */
class Finishing {
  readonly #at: number[] = [];
  readonly #id: number[] = [];

  get size(): number {
    return this.#at.length;
  }

  get next(): number {
    return this.#at[0] ?? Infinity;
  }

  push(at: number, id: number): void {
    const [times, ids] = [this.#at, this.#id];
    let i = times.length;
    times.push(at);
    ids.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= at) break;
      times[i] = times[parent]!;
      ids[i] = ids[parent]!;
      i = parent;
    }
    times[i] = at;
    ids[i] = id;
  }

  pop(): number {
    const [times, ids] = [this.#at, this.#id];
    const top = ids[0]!;
    const lastAt = times.pop()!;
    const lastId = ids.pop()!;
    if (times.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      let least = i;
      let leastAt = lastAt;
      if (left < times.length && times[left]! < leastAt) [least, leastAt] = [left, times[left]!];
      if (left + 1 < times.length && times[left + 1]! < leastAt) [least, leastAt] = [left + 1, times[left + 1]!];
      if (least === i) break;
      times[i] = times[least]!;
      ids[i] = ids[least]!;
      i = least;
    }
    times[i] = lastAt;
    ids[i] = lastId;
    return top;
  }
}

const QUEUE_LIMIT = 50;

function simulate(algorithm: LimitAlgorithm, phases: readonly Phase[], window: WindowedOptions | false): Report[] {
  const limiter = window === false ? algorithm : windowed(algorithm, window);
  const random = seeded(42);
  const finishing = new Finishing();
  const admittedAt: number[] = [];
  const inFlightAtAdmission: number[] = [];
  const queued: number[] = [];
  let queueHead = 0;
  let busy = 0;
  let inFlight = 0;
  let ids = 0;
  let arrival = 0;
  let phaseStart = 0;
  const reports: Report[] = [];
  for (const { seconds, capacity, base } of phases) {
    const end = phaseStart + seconds * 1000;
    const meanGap = base / (capacity * 2);
    const latencies: number[] = [];
    let within: number | undefined;
    const serve = (id: number, now: number) => {
      busy++;
      finishing.push(now + base * (0.5 + random()), id);
    };
    while (arrival < end) {
      while (finishing.next <= arrival) {
        const now = finishing.next;
        const id = finishing.pop();
        busy--;
        inFlight--;
        const rtt = now - admittedAt[id]!;
        limiter.onSample({ at: now, rtt, inFlight: inFlightAtAdmission[id]!, didDrop: false });
        latencies.push(rtt);
        while (busy < capacity && queueHead < queued.length) serve(queued[queueHead++]!, now);
      }
      const now = arrival;
      arrival += meanGap * (0.5 + random());
      const limit = limiter.limit;
      if (within === undefined && limit <= 1.5 * capacity && limit >= 0.9 * capacity) within = Math.round((now - phaseStart) / 100) / 10;
      if (inFlight >= limit) continue; // refused by the limiter
      inFlight++;
      if (busy < capacity) {
        const id = ids++;
        admittedAt[id] = now;
        inFlightAtAdmission[id] = inFlight;
        serve(id, now);
      } else if (queued.length - queueHead < QUEUE_LIMIT) {
        const id = ids++;
        admittedAt[id] = now;
        inFlightAtAdmission[id] = inFlight;
        queued.push(id);
      } else {
        limiter.onSample({ at: now, rtt: 0.01, inFlight, didDrop: true }); // failed fast: a 503
        inFlight--;
      }
    }
    latencies.sort((a, b) => a - b);
    reports.push({
      goodput: Math.round((100 * latencies.length) / ((capacity / base) * seconds * 1000)),
      p50: Math.round((100 * latencies[Math.floor(latencies.length / 2)]!) / base) / 100,
      within,
    });
    phaseStart = end;
  }
  return reports;
}

/** A minute at capacity 50 (40 ms), a minute at 25, a minute at 50 again. */
const PHASES: readonly Phase[] = [
  { seconds: 60, capacity: 50, base: 40 },
  { seconds: 60, capacity: 25, base: 40 },
  { seconds: 60, capacity: 50, base: 40 },
];

const quarter = { minWindowTime: '250ms', maxWindowTime: '250ms' } as const;

describe('call by call: goodput, median latency, seconds until the limit is within 1.5 × capacity', () => {
  it('vegas, Netflix window: p50 1.03 × at capacity 50, 15.2 s to follow the halving (p50 1.33 × over that minute)', () => {
    expect(simulate(vegas({ random: seeded(7) }), PHASES, {})).toEqual([
      { goodput: 94, p50: 1.03, within: 8.1 },
      { goodput: 100, p50: 1.33, within: 15.2 },
      { goodput: 97, p50: 1.04, within: 6.4 },
    ]);
  });

  it('vegas, 250 ms windows: 4 s to follow the halving', () => {
    expect(simulate(vegas({ random: seeded(7) }), PHASES, quarter)).toEqual([
      { goodput: 98, p50: 1.05, within: 3.1 },
      { goodput: 100, p50: 1.2, within: 4 },
      { goodput: 99, p50: 1.06, within: 2.2 },
    ]);
  });

  it('vegas fed call by call (no window): its no-load rtt is the luckiest call, and it starves the backend (Netflix #37)', () => {
    expect(simulate(vegas({ random: seeded(7) }), PHASES, false)).toEqual([
      { goodput: 25, p50: 1, within: 54.9 },
      { goodput: 47, p50: 1, within: 1.1 },
      { goodput: 25, p50: 1, within: undefined },
    ]);
  });

  it('gradient2: p50 up to its tolerance, 22.2 s to follow the halving', () => {
    expect(simulate(gradient2(), PHASES, {})).toEqual([
      { goodput: 80, p50: 1.07, within: 32.1 },
      { goodput: 100, p50: 1.57, within: 22.2 },
      { goodput: 97, p50: 1.25, within: 7.4 },
    ]);
  });

  it('aimd: grows until the backend fails fast, p50 up to 2.85 ×', () => {
    expect(simulate(aimd(), PHASES, {})).toEqual([
      { goodput: 84, p50: 1.17, within: 25.1 },
      { goodput: 100, p50: 2.85, within: undefined },
      { goodput: 100, p50: 1.77, within: 0.3 },
    ]);
  });
});

/** A small backend: 4 calls at once at 100 ms, then 2, then 4 (two minutes each). */
const SMALL: readonly Phase[] = [
  { seconds: 120, capacity: 4, base: 100 },
  { seconds: 120, capacity: 2, base: 100 },
  { seconds: 120, capacity: 4, base: 100 },
];

describe('call by call, a small backend (4 calls at once): where vegas is the wrong choice', () => {
  it('vegas started above the capacity never sees the no-load rtt: p50 4.7 × to 6.6 ×', () => {
    expect(simulate(vegas({ random: seeded(7) }), SMALL, {})).toEqual([
      { goodput: 100, p50: 4.74, within: undefined },
      { goodput: 99, p50: 6.64, within: undefined },
      { goodput: 100, p50: 4.67, within: undefined },
    ]);
  });

  it('vegas started at the capacity keeps α..β = 3 to 6 calls queued: p50 2.15 × to 5.32 ×', () => {
    expect(simulate(vegas({ random: seeded(7), initialLimit: 4 }), SMALL, {})).toEqual([
      { goodput: 99, p50: 2.15, within: 0 },
      { goodput: 99, p50: 5.32, within: undefined },
      { goodput: 100, p50: 3.69, within: undefined },
    ]);
  });

  it('gradient2 with the limits lowered to fit: p50 within its tolerance', () => {
    expect(simulate(gradient2({ minLimit: 1, initialLimit: 4 }), SMALL, {})).toEqual([
      { goodput: 99, p50: 1.58, within: 0 },
      { goodput: 99, p50: 1.76, within: 10.9 },
      { goodput: 100, p50: 1.57, within: 0 },
    ]);
  });
});
