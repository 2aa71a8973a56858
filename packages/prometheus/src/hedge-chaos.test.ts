import { FaultInjection } from '@breakwater/chaos';
import { chaosOfEachStrategy, hedgeAndChaosTraffic, hedgeFourCalls, hedgeRegistryWithOne } from '@breakwater/exporter-scenarios';
import { Hedge } from '@breakwater/retry';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const HEDGE = ['breakwater_hedge_calls_total', 'breakwater_hedge_attempts_total', 'breakwater_hedge_wins_total', 'breakwater_hedge_budget_refusals_total'];

/** The `# TYPE` of each series named. */
async function types(registry: { metrics(): Promise<string> }, names: readonly string[]): Promise<string[]> {
  const text = await registry.metrics();
  return names.map((n) => new RegExp(`^# TYPE ${n} (\\w+)$`, 'm').exec(text)?.[1] ?? 'missing');
}

describe('hedge and chaos series (contract: docs/observability.md)', () => {
  it('hedge: calls by outcome, hedged attempts, wins by attempt (1: the primary), budget refusals — exact, after four real calls on a VirtualClock', async () => {
    const { registry, metrics, scrape } = exporter();
    await hedgeFourCalls((c) => metrics.add(c));
    expect(await scrape(...HEDGE)).toEqual([
      'breakwater_hedge_calls_total{name="search",kind="successful"} 2',
      'breakwater_hedge_calls_total{name="search",kind="failed"} 2',
      'breakwater_hedge_attempts_total{name="search"} 3',
      'breakwater_hedge_wins_total{name="search",attempt="1"} 3',
      'breakwater_hedge_wins_total{name="search",attempt="2"} 1',
      'breakwater_hedge_wins_total{name="search",attempt="3"} 0',
      'breakwater_hedge_budget_refusals_total{name="search"} 1',
    ]);
    expect(await types(registry, HEDGE)).toEqual(['counter', 'counter', 'counter', 'counter']);
  });

  it('chaos: calls injected and not, by strategy, for each of the four', async () => {
    const { registry, metrics, scrape } = exporter();
    await chaosOfEachStrategy((c) => metrics.add(c));
    expect(await scrape()).toEqual([
      'breakwater_chaos_calls_total{name="pg",strategy="fault",injected="true"} 2',
      'breakwater_chaos_calls_total{name="pg",strategy="fault",injected="false"} 2',
      'breakwater_chaos_calls_total{name="pg-slow",strategy="latency",injected="true"} 1',
      'breakwater_chaos_calls_total{name="pg-slow",strategy="latency",injected="false"} 0',
      'breakwater_chaos_calls_total{name="cache",strategy="outcome",injected="true"} 0',
      'breakwater_chaos_calls_total{name="cache",strategy="outcome",injected="false"} 3',
      'breakwater_chaos_calls_total{name="search",strategy="behavior",injected="true"} 1',
      'breakwater_chaos_calls_total{name="search",strategy="behavior",injected="false"} 1',
    ]);
    expect(await types(registry, ['breakwater_chaos_calls_total'])).toEqual(['counter']);
  });

  it('a HedgeRegistry is bound as a whole: hedges it makes later are on the next scrape, removed ones are gone', async () => {
    const { metrics, scrape } = exporter();
    const hedges = hedgeRegistryWithOne((r) => metrics.add(r), 'backendA');
    expect(await scrape('breakwater_hedge_wins_total')).toEqual([
      'breakwater_hedge_wins_total{name="backendA",attempt="1"} 0',
      'breakwater_hedge_wins_total{name="backendA",attempt="2"} 0',
    ]);
    await hedges.get('later').execute(async () => 'ok');
    expect(await scrape('breakwater_hedge_calls_total')).toEqual([
      'breakwater_hedge_calls_total{name="backendA",kind="successful"} 0',
      'breakwater_hedge_calls_total{name="backendA",kind="failed"} 0',
      'breakwater_hedge_calls_total{name="later",kind="successful"} 1',
      'breakwater_hedge_calls_total{name="later",kind="failed"} 0',
    ]);
    hedges.remove('backendA');
    expect(await scrape('breakwater_hedge_attempts_total')).toEqual(['breakwater_hedge_attempts_total{name="later"} 0']);
  });

  it('cardinality: the label sets of a hedge and a chaos layer are fixed when they are made, whatever the calls', async () => {
    const { metrics, scrape } = exporter();
    let before: string[] = [];
    await hedgeAndChaosTraffic(
      (component) => metrics.add(component),
      async () => {
        before = (await scrape()).map((line) => line.replace(/ \S+$/, ''));
      },
    );
    expect(before.length).toBe(2 + 1 + 4 + 1 + 2);
    const after = await scrape();
    expect(after.map((line) => line.replace(/ \S+$/, ''))).toEqual(before);
    expect(after).toContain('breakwater_hedge_wins_total{name="h",attempt="4"} 75');
    expect(after).toContain('breakwater_chaos_calls_total{name="c",strategy="fault",injected="true"} 200');
  });

  it('label values: a name goes through labelValue as everywhere (a lone surrogate escaped), attempt is "1".."n", injected "true" / "false"', async () => {
    const { metrics, scrape } = exporter();
    const clock = newClock();
    metrics.add(new Hedge('a\ud800', { clock }));
    metrics.add(new FaultInjection('b\udbff', { fault: new Error('x'), clock }));
    expect(await scrape('breakwater_hedge_wins_total', 'breakwater_chaos_calls_total')).toEqual([
      'breakwater_hedge_wins_total{name="a\\\\uD800",attempt="1"} 0',
      'breakwater_hedge_wins_total{name="a\\\\uD800",attempt="2"} 0',
      'breakwater_chaos_calls_total{name="b\\\\uDBFF",strategy="fault",injected="true"} 0',
      'breakwater_chaos_calls_total{name="b\\\\uDBFF",strategy="fault",injected="false"} 0',
    ]);
  });

  it("a call the caller aborts counts as failed and as no attempt's win", async () => {
    const { metrics, scrape } = exporter();
    const clock = newClock();
    const hedge = new Hedge('h', { delay: 10, clock });
    metrics.add(hedge);
    const controller = new AbortController();
    const call = hedge.execute(
      (ctx) => new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
      { signal: controller.signal },
    );
    await clock.advance(10); // the hedge starts
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
    expect(await scrape(...HEDGE)).toEqual([
      'breakwater_hedge_calls_total{name="h",kind="successful"} 0',
      'breakwater_hedge_calls_total{name="h",kind="failed"} 1',
      'breakwater_hedge_attempts_total{name="h"} 1',
      'breakwater_hedge_wins_total{name="h",attempt="1"} 0',
      'breakwater_hedge_wins_total{name="h",attempt="2"} 0',
      'breakwater_hedge_budget_refusals_total{name="h"} 0',
    ]);
  });
});
