import { Registry } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  health,
  isObservedComponent,
  labelValue,
  OBSERVED_SERIES,
  ObservedComponents,
  type ObservedChaos,
  type ObservedChaosStrategy,
  type ObservedHedge,
  type ObservedSample,
} from './index.js';

// A hedge and a chaos layer by their shapes (contract: docs/observability.md); the exporters'
// tests hold the same series on the real Hedge and the real chaos strategies.

/** A hedge by its shape; `metrics` counts its reads (each read gives a fresh object, as the real one). */
class FakeHedge implements ObservedHedge {
  readonly kind = 'hedge' as const;
  reads = 0;
  constructor(
    readonly name: string,
    readonly wins: readonly number[] = [5, 2, 1],
  ) {}
  get metrics() {
    this.reads++;
    return {
      numberOfSuccessfulCalls: 7,
      numberOfFailedCalls: 1,
      numberOfHedgedAttempts: 4,
      numberOfHedgesRefusedByBudget: 3,
      winsByAttempt: Object.freeze([...this.wins]),
    };
  }
}

const chaos = (name: string, strategy: ObservedChaosStrategy, injected: number, notInjected: number): ObservedChaos => ({
  kind: 'chaos',
  name,
  strategy,
  metrics: { numberOfInjectedCalls: injected, numberOfCallsNotInjected: notInjected },
});

/** Every sample of the series `name` as `label=value … value`, in the order published. */
const samples = (set: ObservedComponents, name: string): string[] => {
  const s = OBSERVED_SERIES.find((x) => x.name === name)!;
  const out: ObservedSample[] = [];
  for (const entry of set.read()[s.of]) s.samples(entry as never, out);
  return out.map(
    (o) =>
      `${Object.entries(o.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} ${o.value}`,
  );
};

const HEDGE_SERIES = ['hedge_calls_total', 'hedge_attempts_total', 'hedge_wins_total', 'hedge_budget_refusals_total'];

describe('hedges and chaos layers (contract: docs/observability.md)', () => {
  it('are components of their own kinds', () => {
    expect(isObservedComponent(new FakeHedge('search'))).toBe(true);
    expect(isObservedComponent(chaos('pg', 'fault', 0, 0))).toBe(true);
    expect(isObservedComponent({ kind: 'hedge' })).toBe(false); // no name
  });

  it('a hedge: calls by outcome, hedged attempts, wins by attempt ("1": the primary), budget refusals — all counters, read once per read', () => {
    const set = new ObservedComponents('Test');
    const hedge = new FakeHedge('search');
    set.add(hedge);
    expect(HEDGE_SERIES.map((n) => samples(set, n))).toEqual([
      ['name=search kind=successful 7', 'name=search kind=failed 1'],
      ['name=search 4'],
      ['name=search attempt=1 5', 'name=search attempt=2 2', 'name=search attempt=3 1'],
      ['name=search 3'],
    ]);
    expect(HEDGE_SERIES.map((n) => OBSERVED_SERIES.find((s) => s.name === n)!.type)).toEqual(['counter', 'counter', 'counter', 'counter']);
    const reads = hedge.reads;
    set.read();
    expect(hedge.reads).toBe(reads + 1);
  });

  it("a hedge's wins have one sample per attempt it may start (1 to 11), and no more with more calls", () => {
    const set = new ObservedComponents('Test');
    set.add(new FakeHedge('one', [0, 0]));
    set.add(
      new FakeHedge(
        'most',
        Array.from({ length: 11 }, (_, i) => i * 100),
      ),
    );
    const wins = samples(set, 'hedge_wins_total');
    expect(wins.slice(0, 2)).toEqual(['name=one attempt=1 0', 'name=one attempt=2 0']);
    expect(wins.slice(2).map((w) => w.replace(/^name=most attempt=(\d+) .*$/, '$1'))).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(wins.at(-1)).toBe('name=most attempt=11 1000');
  });

  it('a chaos layer: its calls injected and not, labelled by its strategy', () => {
    const set = new ObservedComponents('Test');
    for (const c of [chaos('pg', 'fault', 2, 8), chaos('pg-slow', 'latency', 1, 0), chaos('cache', 'outcome', 0, 3), chaos('search', 'behavior', 4, 4)])
      set.add(c);
    expect(samples(set, 'chaos_calls_total')).toEqual([
      'name=pg strategy=fault injected=true 2',
      'name=pg strategy=fault injected=false 8',
      'name=pg-slow strategy=latency injected=true 1',
      'name=pg-slow strategy=latency injected=false 0',
      'name=cache strategy=outcome injected=true 0',
      'name=cache strategy=outcome injected=false 3',
      'name=search strategy=behavior injected=true 4',
      'name=search strategy=behavior injected=false 4',
    ]);
    expect(OBSERVED_SERIES.find((s) => s.name === 'chaos_calls_total')).toMatchObject({ type: 'counter', labelNames: ['name', 'strategy', 'injected'] });
  });

  it('a registry of hedges is bound as a whole: instances made later are read, removed ones are not', () => {
    const set = new ObservedComponents('Test');
    const registry = new Registry('FakeHedgeRegistry', (n: string) => new FakeHedge(n));
    registry.get('a');
    const stop = set.add(registry);
    registry.get('b');
    expect(samples(set, 'hedge_attempts_total')).toEqual(['name=a 4', 'name=b 4']);
    registry.remove('a');
    expect(samples(set, 'hedge_attempts_total')).toEqual(['name=b 4']);
    stop();
    expect(samples(set, 'hedge_attempts_total')).toEqual([]);
  });

  it('health(): a hedge and a chaos layer are never judged — listed under others with their counters, the snapshot UP', () => {
    const snapshot = health(new FakeHedge('search'), chaos('pg', 'fault', 2, 8));
    expect(snapshot.status).toBe('UP');
    expect(snapshot.components.others).toEqual({
      // winsByAttempt, an array, is not a JSON-safe scalar: the exporters carry it.
      search: {
        kind: 'hedge',
        metrics: { numberOfSuccessfulCalls: 7, numberOfFailedCalls: 1, numberOfHedgedAttempts: 4, numberOfHedgesRefusedByBudget: 3 },
      },
      pg: { kind: 'chaos', metrics: { numberOfInjectedCalls: 2, numberOfCallsNotInjected: 8 } },
    });
  });

  it('any hedge and chaos metrics give, against a model, exactly one sample per label set, each read from its counter', () => {
    const count = fc.nat({ max: 1_000_000 });
    const hedgeArb = fc.record({
      name: fc.string(),
      successful: count,
      failed: count,
      hedged: count,
      refused: count,
      wins: fc.array(count, { minLength: 2, maxLength: 11 }),
    });
    const chaosArb = fc.record({
      name: fc.string(),
      strategy: fc.constantFrom<ObservedChaosStrategy>('fault', 'latency', 'outcome', 'behavior'),
      injected: count,
      not: count,
    });
    fc.assert(
      fc.property(hedgeArb, chaosArb, (h, x) => {
        const set = new ObservedComponents('Test');
        set.add({
          kind: 'hedge',
          name: h.name,
          metrics: {
            numberOfSuccessfulCalls: h.successful,
            numberOfFailedCalls: h.failed,
            numberOfHedgedAttempts: h.hedged,
            numberOfHedgesRefusedByBudget: h.refused,
            winsByAttempt: h.wins,
          },
        });
        set.add(chaos(x.name, x.strategy, x.injected, x.not));
        const n = labelValue(h.name);
        const c = labelValue(x.name);
        expect(HEDGE_SERIES.map((name) => samples(set, name))).toEqual([
          [`name=${n} kind=successful ${h.successful}`, `name=${n} kind=failed ${h.failed}`],
          [`name=${n} ${h.hedged}`],
          h.wins.map((w, i) => `name=${n} attempt=${i + 1} ${w}`),
          [`name=${n} ${h.refused}`],
        ]);
        expect(samples(set, 'chaos_calls_total')).toEqual([
          `name=${c} strategy=${x.strategy} injected=true ${x.injected}`,
          `name=${c} strategy=${x.strategy} injected=false ${x.not}`,
        ]);
      }),
    );
  });
});
