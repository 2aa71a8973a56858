import type { BreakerStateName, CallKind, CircuitBreakerLike, TransitionEvent } from './components.js';

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

/** The lower-case label value of a state, as Resilience4j writes it. */
export const stateLabel = (state: BreakerStateName): string => state.toLowerCase();

/**
 * What the exporter holds for one breaker: its call histogram children (one per kind, bound
 * once) fed by `observeCalls`, and its transitions counted from `stateTransition` events.
 */
export class BreakerBinding {
  readonly cells: Readonly<Record<CallKind, CallCell>>;
  /** Transition counts by `from`, `to` and `cause` label values. */
  readonly transitions = new Map<string, { readonly from: string; readonly to: string; readonly cause: string; count: number }>();
  readonly #unsubscribe: (() => void)[] = [];
  /** Whether the breaker has the per-call hook (a histogram is exported only then). */
  readonly observed: boolean;

  constructor(readonly breaker: CircuitBreakerLike, bounds: readonly number[]) {
    const cells = { successful: new CallCell(bounds), failed: new CallCell(bounds), ignored: new CallCell(bounds) };
    this.cells = cells;
    this.observed = typeof breaker.observeCalls === 'function';
    if (this.observed) {
      this.#unsubscribe.push(breaker.observeCalls!((kind, elapsedMs) => cells[kind]?.observe(elapsedMs / 1000)));
    }
    this.#unsubscribe.push(breaker.on('stateTransition', (e: TransitionEvent) => this.#count(e)));
  }

  #count(e: TransitionEvent): void {
    const cause = e.cause ?? 'unknown';
    const key = `${e.from} ${e.to} ${cause}`;
    const found = this.transitions.get(key);
    if (found !== undefined) found.count++;
    else this.transitions.set(key, { from: stateLabel(e.from), to: stateLabel(e.to), cause, count: 1 });
  }

  dispose(): void {
    for (const off of this.#unsubscribe.splice(0)) off();
  }
}
