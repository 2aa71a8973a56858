import type { LimitAlgorithm, LimitSample } from '../src/index.js';

/** A LimitAlgorithm that records every sample and returns the limits it is told to (the last one repeated; none: its current limit). */
export class RecordingAlgorithm implements LimitAlgorithm {
  readonly name = 'recording';
  readonly samples: LimitSample[] = [];
  /** The limits the next samples return, in order. */
  readonly next: number[] = [];

  constructor(public limit: number) {}

  onSample(sample: LimitSample): number {
    this.samples.push(sample);
    const next = this.next.shift();
    if (next !== undefined) this.limit = next;
    return this.limit;
  }
}

/** A fixed limit (never moves). */
export const fixed = (limit: number): LimitAlgorithm => ({ name: 'fixed', limit, onSample: () => limit });
