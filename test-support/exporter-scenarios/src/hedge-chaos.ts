import { BehaviorInjection, FaultInjection, LatencyInjection, OutcomeInjection, type Chaos } from '@breakwater/chaos';
import type { CallContext } from '@breakwater/core';
import { Hedge, HedgeRegistry, RetryBudget } from '@breakwater/retry';
import { deferred, flush, track } from '@breakwater/test-support';
import { expect } from 'vitest';
import { newClock } from './clock.js';

/** An attempt the scenario settles by hand. */
interface Attempt {
  readonly promise: Promise<string>;
  resolve(value: string): void;
}

/** An attempt that settles when the scenario says, or rejects with the reason its own signal aborts with. */
function attempt(ctx: CallContext): Attempt {
  const d = deferred<string>();
  ctx.signal.addEventListener('abort', () => d.reject(ctx.signal.reason), { once: true });
  return d;
}

/**
 * Hedge `search` (up to 2 hedged attempts, 100 ms apart; a retry budget of 3 hedges in its 10 s
 * window, none earned by calls), given to `add`, and four calls on its VirtualClock:
 * 1. the primary answers at 50 ms: no hedge, the primary wins;
 * 2. the primary hangs; at 100 ms attempt 2 starts and answers at 130 ms: attempt 2 wins (the
 *    primary, aborted through its signal, settles before the call does);
 * 3. the primary fails at once, so attempt 2 starts at once and fails, then attempt 3: all fail,
 *    the caller gets the primary's failure (the primary "wins" a failed call);
 * 4. the primary fails at once, and the budget, spent by the three hedges before, refuses the next.
 * So: 2 successful and 2 failed calls, 3 hedged attempts, wins by attempt [3, 1, 0], 1 budget refusal.
 */
export async function hedgeFourCalls(add: (hedge: Hedge) => unknown): Promise<void> {
  const clock = newClock();
  const budget = new RetryBudget({ ratio: 0, minRetriesPerSecond: 0.3, ttl: 10_000, clock });
  const hedge = new Hedge('search', { maxHedgedAttempts: 2, delay: 100, budget, clock });
  add(hedge);

  const first: Attempt[] = [];
  const one = track(
    hedge.execute((ctx) => {
      first.push(attempt(ctx));
      return first.at(-1)!.promise;
    }),
  );
  await clock.advance(50);
  first[0]!.resolve('primary');
  await flush();
  expect([one.value, first.length]).toEqual(['primary', 1]);

  const second: Attempt[] = [];
  const two = track(
    hedge.execute((ctx) => {
      second.push(attempt(ctx));
      return second.at(-1)!.promise;
    }),
  );
  await clock.advance(100);
  expect(second.length).toBe(2);
  await clock.advance(30);
  second[1]!.resolve('hedge');
  await flush();
  expect([two.value, second.length]).toEqual(['hedge', 2]);

  let tries = 0;
  await expect(hedge.execute(async (ctx) => Promise.reject(new Error(`attempt ${ctx.attempt} (${++tries})`)))).rejects.toThrow('attempt 1 (1)');
  expect(tries).toBe(3);
  await expect(hedge.execute(async (ctx) => Promise.reject(new Error(`attempt ${ctx.attempt}`)))).rejects.toThrow('attempt 1');
  expect(hedge.metrics).toEqual({
    numberOfSuccessfulCalls: 2,
    numberOfFailedCalls: 2,
    numberOfHedgedAttempts: 3,
    numberOfHedgesRefusedByBudget: 1,
    winsByAttempt: [3, 1, 0],
  });
}

/** A hedge registry on one clock, given to `add`, holding one hedge `name` (1 hedged attempt by default: wins for attempts 1 and 2). */
export function hedgeRegistryWithOne(add: (registry: HedgeRegistry) => unknown, name = 'backendA'): HedgeRegistry {
  const clock = newClock();
  const registry = new HedgeRegistry({ defaultConfig: { clock } });
  add(registry);
  registry.get(name);
  return registry;
}

/**
 * One chaos layer of each strategy, given to `add`, on one VirtualClock:
 * - FaultInjection `pg` (rate 0.5, its draws 0.2, 0.8, 0.2, 0.8): of 4 calls, 2 throw the fault, 2 pass;
 * - LatencyInjection `pg-slow` (100 ms, rate 1): 1 call, delayed 100 ms;
 * - OutcomeInjection `cache` (disabled): 3 calls, all passed through;
 * - BehaviorInjection `search` (rate 1, enabled for the first call only): 1 injected, 1 not.
 * So injected / not injected: pg 2/2, pg-slow 1/0, cache 0/3, search 1/1.
 */
export async function chaosOfEachStrategy(add: (chaos: Chaos) => unknown): Promise<void> {
  const clock = newClock();
  let draw = 0;
  const fault = new FaultInjection('pg', { fault: new Error('injected'), enabled: true, rate: 0.5, random: () => (draw++ % 2 === 0 ? 0.2 : 0.8), clock });
  const latency = new LatencyInjection('pg-slow', { latency: 100, enabled: true, rate: 1, clock });
  const outcome = new OutcomeInjection('cache', { outcome: 'stale', enabled: false, clock });
  let enabled = true;
  const behaviors: string[] = [];
  const behavior = new BehaviorInjection('search', {
    behavior: () => void behaviors.push('ran'),
    enabled: () => {
      const now = enabled;
      enabled = false;
      return now;
    },
    rate: 1,
    clock,
  });
  for (const c of [fault, latency, outcome, behavior]) add(c);

  const outcomes: string[] = [];
  for (let i = 0; i < 4; i++) outcomes.push(await fault.execute(async () => 'real').catch((e: Error) => e.message));
  expect(outcomes).toEqual(['injected', 'real', 'injected', 'real']);

  const slow = track(latency.execute(async () => 'late'));
  await clock.advance(99);
  expect(slow.state).toBe('pending');
  await clock.advance(1);
  await flush();
  expect(slow.value).toBe('late');

  for (let i = 0; i < 3; i++) expect(await outcome.execute(async () => 'fresh')).toBe('fresh');
  for (let i = 0; i < 2; i++) await behavior.execute(async () => 'ok');
  expect(behaviors).toEqual(['ran']);
}

/**
 * The traffic of the cardinality tests: hedge `h` (3 hedged attempts, all at once) and fault
 * injection `c` (enabled, rate 0.5, draws 0, 1/3, 2/3, …), given to `add` (before any call), then
 * 300 calls through each: attempt 1 + i % 4 of hedged call i answers (the others end when aborted:
 * 75 wins for each attempt), and 200 of the 300 chaos calls are injected. `between` runs after the
 * components are added and before the calls (the tests read the series there).
 */
export async function hedgeAndChaosTraffic(add: (component: Hedge | Chaos) => unknown, between: () => Promise<unknown>): Promise<void> {
  const clock = newClock();
  const hedge = new Hedge('h', { maxHedgedAttempts: 3, delay: 0, clock });
  let draw = 0;
  const chaos = new FaultInjection('c', { fault: new Error('x'), enabled: true, rate: 0.5, random: () => (draw++ % 3) / 3, clock });
  add(hedge);
  add(chaos);
  await between();
  for (let i = 0; i < 300; i++) {
    // delay 0: the four attempts start at once; attempt 1 + i % 4 answers, the others end when aborted.
    await hedge.execute((ctx) =>
      ctx.attempt === 1 + (i % 4)
        ? Promise.resolve('won')
        : new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
    );
    await chaos.execute(async () => 'ok').catch(() => 'injected');
  }
}
