import { getEventListeners } from 'node:events';
import { type CallContext, type Clock, type TimerHandle, VirtualClock } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Hedge, type HedgeOutcome, RetryBudget } from './index.js';

// A hedged call under any interleaving of its attempts' outcomes, its delay timer and the
// caller's abort (fc.scheduler), held against a brute-force model that replays what happened in
// the order the hedge saw it (contract: docs/hedging.md).

class Fatal extends Error {}

type Script = { readonly kind: 'ok' | 'bad' | 'handled' | 'fatal' };
const scriptArb: fc.Arbitrary<Script> = fc.record({ kind: fc.constantFrom('ok', 'bad', 'handled', 'fatal') });

/** A result 'bad…' and an error that is not a Fatal are failures to hedge past. */
const shouldHandle = (o: HedgeOutcome): boolean => ('error' in o ? !(o.error instanceof Fatal) : String(o.result).startsWith('bad'));

type Entry =
  | { readonly what: 'timer'; readonly pendingBefore: number }
  | { readonly what: 'settle'; readonly attempt: number; readonly pendingBefore: number }
  | { readonly what: 'abort'; readonly pendingBefore: number }
  | { readonly what: 'call' };

/**
 * A clock whose timers fire when the scheduler says, in any order against the attempts; time
 * moves only when a timer fires (to its due time, if that is later).
 */
class ScheduledClock implements Clock {
  pending = 0;
  #now = 0;
  constructor(
    private readonly s: fc.Scheduler,
    private readonly log: Entry[],
  ) {}
  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = { live: true };
    const due = this.#now + ms;
    this.pending++;
    void this.s.schedule(Promise.resolve(), `timer ${ms}`).then(() => {
      if (!handle.live) return;
      handle.live = false;
      this.#now = Math.max(this.#now, due);
      this.log.push({ what: 'timer', pendingBefore: this.pending });
      this.pending--;
      fn();
    });
    return handle;
  }
  clearTimeout(handle: TimerHandle): void {
    const h = handle as { live: boolean };
    if (!h.live) return;
    h.live = false;
    this.pending--;
  }
}

interface Model {
  started: number;
  hedges: number;
  refused: number;
  winner: number; // 0: none (aborted)
  outcome: { ok: boolean; value: unknown };
  aborted: boolean;
}

/** The brute-force model: the log replayed, one event at a time. */
function replay(log: readonly Entry[], scripts: readonly Script[], max: number, delay: number, allowed: number, reason: unknown): Model {
  const m: Model = { started: 1, hedges: 0, refused: 0, winner: 0, outcome: { ok: false, value: undefined }, aborted: false };
  let running = true;
  let refused = false;
  let settled = 0;
  let primary: { ok: boolean; value: unknown } | undefined;
  const outcomeOf = (i: number): { ok: boolean; value: unknown } => {
    const k = scripts[i - 1]!.kind;
    return k === 'ok' || k === 'bad' ? { ok: true, value: `${k}${i}` } : { ok: false, value: `${k}${i}` };
  };
  const hedge = (): void => {
    if (!running || m.started >= max || refused) return;
    if (m.hedges >= allowed) {
      refused = true;
      m.refused++;
      return;
    }
    m.hedges++;
    m.started++;
  };
  const timerExpected = (): number => (running && delay > 0 && m.started < max && !refused ? 1 : 0);
  if (delay === 0) while (running && m.started < max && !refused) hedge();
  for (const e of log) {
    if (e.what === 'call') break;
    expect(e.pendingBefore).toBe(timerExpected());
    if (e.what === 'timer') hedge();
    else if (e.what === 'abort') {
      if (m.aborted || (!running && settled === m.started)) continue;
      m.aborted = true;
      running = false;
      m.winner = 0;
      m.outcome = { ok: false, value: reason };
    } else {
      settled++;
      if (!running) continue;
      const o = outcomeOf(e.attempt);
      const kind = scripts[e.attempt - 1]!.kind;
      if (kind === 'ok' || kind === 'fatal') {
        running = false;
        m.winner = e.attempt;
        m.outcome = o;
      } else {
        if (e.attempt === 1) primary = o;
        hedge();
        if (running && settled === m.started) {
          running = false;
          m.winner = 1;
          m.outcome = primary!;
        }
      }
    }
  }
  return m;
}

describe('Hedge under any interleaving of attempts, delays and the caller’s abort (fc.scheduler)', () => {
  it('gives the model’s outcome, settles after every attempt, aborts every loser, leaves no timer nor listener', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(-1, 0, 10),
        fc.array(scriptArb, { minLength: 5, maxLength: 5 }),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        fc.constantFrom('none' as const, 'quiet' as const, 'abort' as const),
        async (s, maxHedged, delay, scripts, allowed, signalMode) => {
          const log: Entry[] = [];
          const clock = new ScheduledClock(s, log);
          const budgetClock = new VirtualClock();
          const budget = allowed === undefined ? undefined : new RetryBudget({ ratio: 0, minRetriesPerSecond: allowed, ttl: '1s', clock: budgetClock });
          const hedge = new Hedge('p', { clock, delay, maxHedgedAttempts: maxHedged, shouldHandle, budget });
          const caller = new AbortController();
          const reason = new Error('caller left');
          const contexts: CallContext[] = [];
          const fn = (ctx: CallContext): unknown => {
            contexts.push(ctx);
            const i = ctx.attempt;
            const script = scripts[i - 1]!;
            const value = `${script.kind}${i}`;
            const ok = script.kind === 'ok' || script.kind === 'bad';
            const error = script.kind === 'fatal' ? Object.assign(new Fatal(value), { tag: value }) : value;
            const settled = s.schedule(ok ? Promise.resolve(value) : Promise.reject(error), `attempt ${i}`);
            settled.then(
              () => log.push({ what: 'settle', attempt: i, pendingBefore: clock.pending }),
              () => log.push({ what: 'settle', attempt: i, pendingBefore: clock.pending }),
            );
            return settled;
          };
          if (signalMode === 'abort') {
            void s.schedule(Promise.resolve(), 'abort').then(() => {
              log.push({ what: 'abort', pendingBefore: clock.pending });
              caller.abort(reason);
            });
          }
          let result: { ok: boolean; value: unknown } | undefined;
          hedge
            .execute(fn, signalMode === 'none' ? undefined : { signal: caller.signal })
            .then(
              (value) => ({ ok: true, value }),
              (error: unknown) => ({ ok: false, value: error instanceof Fatal ? (error as Fatal & { tag: string }).tag : error }),
            )
            .then((r) => {
              result = r;
              log.push({ what: 'call' });
            });
          await s.waitAll();
          await new Promise((resolve) => setImmediate(resolve));

          const m = replay(log, scripts, maxHedged + 1, delay, allowed ?? Number.POSITIVE_INFINITY, reason);
          expect(result).toEqual(m.outcome);
          expect(contexts.map((c) => c.attempt)).toEqual(Array.from({ length: m.started }, (_, i) => i + 1));
          // The call settled after every attempt had (unless the caller aborted).
          const callAt = log.findIndex((e) => e.what === 'call');
          const settles = log.filter((e) => e.what === 'settle').length;
          expect(settles).toBe(m.started);
          if (!m.aborted) expect(log.slice(callAt).some((e) => e.what === 'settle')).toBe(false);
          // Every loser's signal aborted; the winner's not.
          expect(contexts.map((c) => c.signal.aborted)).toEqual(contexts.map((_, i) => m.aborted || i + 1 !== m.winner));
          expect(clock.pending).toBe(0);
          expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
          const wins = new Array<number>(maxHedged + 1).fill(0);
          if (m.winner !== 0) wins[m.winner - 1] = 1;
          const successful = !m.aborted && m.outcome.ok && !String(m.outcome.value).startsWith('bad');
          expect(hedge.metrics).toEqual({
            numberOfSuccessfulCalls: successful ? 1 : 0,
            numberOfFailedCalls: successful ? 0 : 1,
            numberOfHedgedAttempts: m.hedges,
            numberOfHedgesRefusedByBudget: m.refused,
            winsByAttempt: wins,
          });
        },
      ),
      { numRuns: 400 },
    );
  });
});
