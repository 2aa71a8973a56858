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
 * How many calls of `run` one sample times, so that a sample lasts about 0.25 ms whatever the
 * operation costs: 4096 calls of ~60 ns, 8 of ~30 µs, 1 of anything longer. Measured on warm code.
 */
async function batchFor(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < 16; i++) await run();
  const perRun = ((performance.now() - t0) / 16) * 1e6;
  return Math.max(1, Math.min(4096, Math.round(250_000 / perRun)));
}

/** Times one sample: `batch` awaited calls of the case, in ns per call. */
type Sampler = (batch: number) => Promise<number>;

const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<unknown>;

/**
 * A {@link Sampler} of `run`, compiled for it alone (as mitata compiles its loop per benchmark):
 * one loop shared by every case would call a different `run` at the same call site, and that site,
 * megamorphic, would add its own nanoseconds to every figure, floors included.
 */
function samplerOf(run: () => Promise<unknown>): Sampler {
  const loop = new AsyncFunction(
    'run',
    'batch',
    `const t0 = performance.now();
    for (let i = 0; i < batch; i++) await run();
    return ((performance.now() - t0) * 1e6) / batch;`,
  );
  return (batch) => loop(run, batch) as Promise<number>;
}

/**
 * One round of one case: samples of `batch` awaited calls each, for `msPerCase` ms and at least
 * 12 samples; the median of the samples, in ns per call. No collection is forced before a round
 * (mitata's `measure`, which this replaced, runs a full one first: V8 then drops what its inline
 * caches knew of shapes no live object has any more, and the code after it runs slowly until it
 * has learnt them again — for a retried call some thousands of calls at 2-4× its cost, which fell
 * on every round), and nothing is allocated but the samples.
 */
async function timeOnce(sample: Sampler, msPerCase: number, batch: number): Promise<number> {
  const samples: number[] = [];
  const end = performance.now() + msPerCase;
  do samples.push(await sample(batch));
  while (samples.length < 12 || performance.now() < end);
  return median(samples);
}

/**
 * Times every case of a group, interleaved: each case is warmed up first (the same 100 ms of
 * untimed calls for each, then its batch is sized), then round 1 times each case once, round 2
 * again, … A case's figure is its fastest round ({@link fastestRound}). Returns the figures and
 * every round's, by case.
 */
export async function timeGroup(cases: readonly Case[], budget: Budget): Promise<{ figures: number[]; perRound: number[][] }> {
  // One call each first, so every case is checked to work (a throw here is a broken case, not a figure).
  for (const c of cases) await c.run();
  const batches: number[] = [];
  for (const c of cases) {
    const warmUpEnd = performance.now() + 100;
    while (performance.now() < warmUpEnd) await c.run();
    batches.push(await batchFor(c.run));
  }
  const samplers = cases.map((c) => samplerOf(c.run));
  const perRound: number[][] = cases.map(() => []);
  for (let r = 0; r < budget.rounds; r++) {
    for (let i = 0; i < cases.length; i++) {
      perRound[i]!.push((await timeOnce(samplers[i]!, budget.msPerCase, batches[i]!)) / (cases[i]!.opsPerRun ?? 1));
    }
  }
  return { figures: perRound.map(fastestRound), perRound };
}

/**
 * A case's figure from its rounds: the fastest. Each round is already the median of a dozen or
 * more samples, so no single lucky sample makes it; what makes a round slow is a phase of the
 * machine (on the VMs we measure on, another tenant of the host slowing a core by 1.5-1.7× for
 * tens to hundreds of milliseconds), which only ever adds time. The median of the rounds moves
 * with how many rounds such phases hit; the fastest round is the one they spared.
 */
function fastestRound(rounds: readonly number[]): number {
  if (rounds.length === 0) throw new RangeError('fastestRound of no rounds');
  return Math.min(...rounds);
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
