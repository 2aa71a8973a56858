import type { CallRecorder, ObservedCallKind, RttRecorder } from '@breakwater/observe';

/**
 * One histogram child: the counts of one breaker and call kind, bound once. An observation is
 * a bucket search and three additions — no label lookup, no hashing, no allocation.
 */
export class CallCell {
  /** `counts[i]`: observations in bucket i (not cumulative); the last one is `+Inf`. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** The largest observation since the last scrape read it (Micrometer's `_max`). */
  max = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
    if (seconds > this.max) this.max = seconds;
  }
}

/**
 * A breaker's call histogram children, one per kind, bound once; observe's `BreakerObservation` feeds
 * it from `observeCalls` (and counts the breaker's transitions beside it).
 */
export class CallCells implements CallRecorder {
  readonly cells: Readonly<Record<ObservedCallKind, CallCell>>;

  constructor(bounds: readonly number[]) {
    this.cells = { successful: new CallCell(bounds), failed: new CallCell(bounds), ignored: new CallCell(bounds) };
  }

  record(kind: ObservedCallKind, elapsedMs: number): void {
    this.cells[kind]?.observe(elapsedMs / 1000);
  }
}

/**
 * An adaptive limiter's round-trip histogram child, bound once; observe's
 * `AdaptiveLimiterObservation` feeds it from the limiter's `observeCalls` hook (no event object).
 */
export class RttCell implements RttRecorder {
  readonly cell: CallCell;

  constructor(bounds: readonly number[]) {
    this.cell = new CallCell(bounds);
  }

  record(rttMs: number): void {
    this.cell.observe(rttMs / 1000);
  }
}
