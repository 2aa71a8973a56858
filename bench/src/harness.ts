import { measure } from 'mitata';

/** Who a measured case belongs to: the floor (bare work), Breakwater, or a peer library. */
export type Side = 'floor' | 'breakwater' | 'peer';

/** One thing timed: `run()` does one operation and returns its promise (the harness awaits it). */
export interface Case {
  readonly name: string;
  readonly side: Side;
  readonly run: () => Promise<unknown>;
  /** Not judged by the row's target (shown for context, e.g. the default of an option whose fast setting is judged). */
  readonly informational?: boolean;
  /** Operations one `run()` does (default 1): the figure is per operation. */
  readonly opsPerRun?: number;
}

/** How long a measurement runs: CPU time per case per round, and rounds. */
export interface Budget {
  readonly msPerCase: number;
  readonly rounds: number;
}

/**
 * Median ns per operation of one case over one round: mitata batches operations into samples
 * (4096 awaited calls each when a call is short) and we keep the median of the samples.
 */
export async function timeOnce(run: () => Promise<unknown>, msPerCase: number): Promise<number> {
  // A sample of about 0.25 ms whatever the operation costs: mitata's default batch of 4096 calls
  // per sample (and at least 12 samples) would make a 30 µs operation take 1.5 s.
  const t0 = performance.now();
  for (let i = 0; i < 16; i++) await run();
  const perRun = ((performance.now() - t0) / 16) * 1e6;
  const batch = Math.max(4, Math.min(4096, 4 * Math.round(250_000 / perRun / 4)));
  const stats = await measure(run, { min_cpu_time: msPerCase * 1e6, min_samples: 12, batch_samples: batch });
  return stats.p50;
}

/**
 * Times every case of a group, interleaved: round 1 times each case once, round 2 again, …, and
 * a case's figure is the median of its rounds. Interleaving spreads any slow phase of the
 * machine over every case of the group instead of one.
 */
export async function timeGroup(cases: readonly Case[], budget: Budget, onRound?: (perCase: readonly number[][]) => void): Promise<number[]> {
  // One call each first, so every case is checked to work (a throw here is a broken case, not a figure).
  for (const c of cases) await c.run();
  const perRound: number[][] = cases.map(() => []);
  for (let r = 0; r < budget.rounds; r++) {
    for (let i = 0; i < cases.length; i++) perRound[i]!.push((await timeOnce(cases[i]!.run, budget.msPerCase)) / (cases[i]!.opsPerRun ?? 1));
  }
  onRound?.(perRound);
  return perRound.map(median);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A row of the table: the floor (the bare work) and the libraries doing the same work around it. */
export interface Row {
  readonly id: string;
  readonly title: string;
  readonly floor: Case;
  readonly cases: readonly Case[];
  /** Runs once before the row is timed (e.g. fills a window). */
  readonly prepare?: () => Promise<void>;
}

/** Builds a case. */
export function bw(name: string, run: () => Promise<unknown>, extra: Partial<Case> = {}): Case {
  return { name, side: 'breakwater', run, ...extra };
}

/** Builds a peer case. */
export function peer(name: string, run: () => Promise<unknown>, extra: Partial<Case> = {}): Case {
  return { name, side: 'peer', run, ...extra };
}

/** Builds the floor of a row. */
export function floor(name: string, run: () => Promise<unknown>, extra: Partial<Case> = {}): Case {
  return { name, side: 'floor', run, ...extra };
}
