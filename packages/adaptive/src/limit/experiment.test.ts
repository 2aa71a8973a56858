// The experiment ALGORITHMS.md reports: each algorithm, windowed with Netflix's defaults, against a
// backend that serves `capacity` calls at once in `base` ms and queues the rest (rtt = base ·
// max(1, inFlight / capacity)), failing fast beyond `capacity + queueLimit` (a drop). Demand always
// fills the limit. A closed loop in rounds: the limit's calls start together and end together.

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

interface PhaseReport {
  /** The limit over the phase's last 30 s: lowest and highest. */
  readonly settled: readonly [number, number];
  /** The rtt over the phase's last 30 s against the phase's base latency, highest. */
  readonly rttRatio: number;
  /** Calls served against what the capacity could serve in the phase, %, rounded down. */
  readonly goodput: number;
  /** Seconds from the phase's start until the limit is within 1.5 × its capacity (and >= 0.9 × capacity). */
  readonly within: number | undefined;
  /** Seconds of the phase the limit spent under 0.9 × its capacity (capacity left unused). */
  readonly under: number;
}

const QUEUE_LIMIT = 50;

function run(algorithm: LimitAlgorithm, phases: readonly Phase[], window: WindowedOptions | false = {}): PhaseReport[] {
  const w = window === false ? algorithm : windowed(algorithm, window);
  const reports: PhaseReport[] = [];
  let t = 0;
  for (const { seconds, capacity, base } of phases) {
    const start = t;
    const end = start + seconds * 1000;
    let served = 0;
    let within: number | undefined;
    let low = Infinity;
    let high = -Infinity;
    let rttRatio = 0;
    let under = 0;
    while (t < end) {
      const limit = w.limit;
      if (within === undefined && limit <= 1.5 * capacity && limit >= 0.9 * capacity) within = Math.round((t - start) / 100) / 10;
      const admitted = Math.min(limit, capacity + QUEUE_LIMIT);
      const rtt = base * Math.max(1, admitted / capacity);
      for (let i = admitted; i < limit; i++) w.onSample({ at: t + 1, rtt: 1, inFlight: limit, didDrop: true });
      for (let i = 0; i < admitted; i++) w.onSample({ at: t + rtt, rtt, inFlight: limit, didDrop: false });
      served += admitted;
      if (limit < 0.9 * capacity) under += rtt;
      if (t >= end - 30_000) {
        low = Math.min(low, limit);
        high = Math.max(high, limit);
        rttRatio = Math.max(rttRatio, rtt / base);
      }
      t += rtt;
    }
    const possible = (capacity / base) * (t - start);
    reports.push({
      settled: [low, high],
      rttRatio: Math.round(rttRatio * 100) / 100,
      goodput: Math.floor((100 * served) / possible),
      within,
      under: Math.round(under / 100) / 10,
    });
  }
  return reports;
}

/** 2 minutes at capacity 50, 2 minutes at 25, 2 minutes at 50 again; then a deploy doubles the floor (40 → 80 ms) for 4 minutes. */
const PHASES: readonly Phase[] = [
  { seconds: 120, capacity: 50, base: 40 },
  { seconds: 120, capacity: 25, base: 40 },
  { seconds: 120, capacity: 50, base: 40 },
  { seconds: 240, capacity: 50, base: 80 },
];

const vegasFixed = () => vegas({ random: () => 0.5 }); // the probe's jitter fixed at 0.75

describe('the experiment of ALGORITHMS.md (Netflix window: 1 s, 10 calls)', () => {
  it('vegas settles 5 over capacity (rtt 1.1 ×), takes 18 s to 1.5 × a halved capacity, loses 22 s to a floor that doubled', () => {
    expect(run(vegasFixed(), PHASES)).toEqual([
      { settled: [55, 55], rttRatio: 1.1, goodput: 97, within: 6, under: 6 },
      { settled: [30, 30], rttRatio: 1.2, goodput: 99, within: 18.1, under: 0 },
      { settled: [54, 54], rttRatio: 1.08, goodput: 99, within: 3, under: 3 },
      { settled: [55, 55], rttRatio: 1.1, goodput: 97, within: 0, under: 21.8 },
    ]);
  });

  it('gradient2 settles where the rtt is its tolerance (1.52 ×), takes 26 s to 1.5 × a halved capacity', () => {
    expect(run(gradient2(), PHASES)).toEqual([
      { settled: [75, 76], rttRatio: 1.52, goodput: 90, within: 32, under: 32 },
      { settled: [37, 38], rttRatio: 1.52, goodput: 100, within: 26.2, under: 0 },
      { settled: [75, 76], rttRatio: 1.52, goodput: 98, within: 8, under: 8 },
      { settled: [75, 76], rttRatio: 1.52, goodput: 91, within: 0.9, under: 51 },
    ]);
  });

  it('aimd, blind to latency, fills the backend queue until calls fail fast (rtt 2 × to 3 ×)', () => {
    expect(run(aimd(), PHASES)).toEqual([
      { settled: [90, 101], rttRatio: 2, goodput: 92, within: 25, under: 25 },
      { settled: [68, 76], rttRatio: 3, goodput: 100, within: undefined, under: 0 },
      { settled: [90, 101], rttRatio: 2, goodput: 100, within: 0, under: 0 },
      { settled: [90, 101], rttRatio: 2, goodput: 99, within: undefined, under: 0 },
    ]);
  });
});

describe('the experiment with windows of 250 ms', () => {
  const quarter = { minWindowTime: '250ms', maxWindowTime: '250ms' } as const;

  it('vegas reaches 1.5 × a halved capacity in 5.2 s', () => {
    expect(run(vegasFixed(), PHASES, quarter)).toEqual([
      { settled: [55, 55], rttRatio: 1.1, goodput: 99, within: 1.7, under: 1.7 },
      { settled: [36, 36], rttRatio: 1.44, goodput: 99, within: 5.2, under: 0 },
      { settled: [54, 54], rttRatio: 1.08, goodput: 99, within: 0.9, under: 0.9 },
      { settled: [54, 54], rttRatio: 1.08, goodput: 99, within: 0, under: 5.8 },
    ]);
  });

  it('gradient2 in 7.1 s', () => {
    expect(run(gradient2(), PHASES, quarter)).toEqual([
      { settled: [75, 76], rttRatio: 1.52, goodput: 97, within: 9, under: 9 },
      { settled: [37, 38], rttRatio: 1.52, goodput: 100, within: 7.1, under: 0 },
      { settled: [75, 76], rttRatio: 1.52, goodput: 99, within: 2.3, under: 2.3 },
      { settled: [75, 76], rttRatio: 1.52, goodput: 97, within: 0.2, under: 15.7 },
    ]);
  });
});
