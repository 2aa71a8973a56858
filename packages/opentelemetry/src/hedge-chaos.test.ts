import { FaultInjection } from '@breakwater/chaos';
import { chaosOfEachStrategy, hedgeAndChaosTraffic, hedgeFourCalls, hedgeRegistryWithOne } from '@breakwater/exporter-scenarios';
import { Hedge } from '@breakwater/retry';
import { AggregationTemporality, DataPointType, type MetricData } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

/** A monotonic sum is what an (observable) counter gives. */
const monotonic = (m: MetricData): boolean => m.dataPointType === DataPointType.SUM && m.isMonotonic;

const HEDGE = ['breakwater.hedge.calls', 'breakwater.hedge.attempts', 'breakwater.hedge.wins', 'breakwater.hedge.budget_refusals'];

describe('hedge and chaos instruments (contract: docs/observability.md)', () => {
  it('hedge: calls by outcome, hedged attempts, wins by attempt (1: the primary), budget refusals — observable counters, exact after four real calls', async () => {
    const { metrics, collect, collectAll } = exporter();
    await hedgeFourCalls((c) => metrics.add(c));
    expect(await collect(...HEDGE)).toEqual([
      'breakwater.hedge.attempts{name="search"} 3',
      'breakwater.hedge.budget_refusals{name="search"} 1',
      'breakwater.hedge.calls{name="search",kind="failed"} 2',
      'breakwater.hedge.calls{name="search",kind="successful"} 2',
      'breakwater.hedge.wins{name="search",attempt="1"} 3',
      'breakwater.hedge.wins{name="search",attempt="2"} 1',
      'breakwater.hedge.wins{name="search",attempt="3"} 0',
    ]);
    const counters = (await collectAll()).filter((m) => HEDGE.includes(m.descriptor.name)).map(monotonic);
    expect(counters).toEqual([true, true, true, true]);
  });

  it('chaos: calls injected and not, by strategy, for each of the four', async () => {
    const { metrics, collect, collectAll } = exporter();
    await chaosOfEachStrategy((c) => metrics.add(c));
    expect(await collect()).toEqual([
      'breakwater.chaos.calls{name="cache",strategy="outcome",injected="false"} 3',
      'breakwater.chaos.calls{name="cache",strategy="outcome",injected="true"} 0',
      'breakwater.chaos.calls{name="pg",strategy="fault",injected="false"} 2',
      'breakwater.chaos.calls{name="pg",strategy="fault",injected="true"} 2',
      'breakwater.chaos.calls{name="pg-slow",strategy="latency",injected="false"} 0',
      'breakwater.chaos.calls{name="pg-slow",strategy="latency",injected="true"} 1',
      'breakwater.chaos.calls{name="search",strategy="behavior",injected="false"} 1',
      'breakwater.chaos.calls{name="search",strategy="behavior",injected="true"} 1',
    ]);
    const chaos = (await collectAll()).find((m) => m.descriptor.name === 'breakwater.chaos.calls')!;
    expect(monotonic(chaos)).toBe(true);
  });

  it('with DELTA temporality, a collection gives what was counted since the previous one', async () => {
    const { metrics, collect } = exporter({}, AggregationTemporality.DELTA);
    const clock = newClock();
    const hedge = new Hedge('h', { clock });
    metrics.add(hedge);
    await hedge.execute(async () => 'ok');
    expect(await collect('breakwater.hedge.calls')).toEqual([
      'breakwater.hedge.calls{name="h",kind="failed"} 0',
      'breakwater.hedge.calls{name="h",kind="successful"} 1',
    ]);
    await hedge.execute(async () => 'ok');
    await hedge.execute(async () => 'ok');
    expect(await collect('breakwater.hedge.calls')).toEqual([
      'breakwater.hedge.calls{name="h",kind="failed"} 0',
      'breakwater.hedge.calls{name="h",kind="successful"} 2',
    ]);
  });

  it('a HedgeRegistry is bound as a whole: hedges it makes later are in the next collection, removed ones are not', async () => {
    const { metrics, collect } = exporter();
    const hedges = hedgeRegistryWithOne((r) => metrics.add(r), 'backendA');
    expect(await collect('breakwater.hedge.wins')).toEqual([
      'breakwater.hedge.wins{name="backendA",attempt="1"} 0',
      'breakwater.hedge.wins{name="backendA",attempt="2"} 0',
    ]);
    await hedges.get('later').execute(async () => 'ok');
    expect(await collect('breakwater.hedge.calls')).toEqual([
      'breakwater.hedge.calls{name="backendA",kind="failed"} 0',
      'breakwater.hedge.calls{name="backendA",kind="successful"} 0',
      'breakwater.hedge.calls{name="later",kind="failed"} 0',
      'breakwater.hedge.calls{name="later",kind="successful"} 1',
    ]);
    hedges.remove('backendA');
    const { metrics: fresh, collect: collectFresh } = exporter();
    fresh.add(hedges);
    expect(await collectFresh('breakwater.hedge.attempts')).toEqual(['breakwater.hedge.attempts{name="later"} 0']);
  });

  it('cardinality: the attribute sets of a hedge and a chaos layer are fixed when they are made, whatever the calls', async () => {
    const { metrics, collect } = exporter();
    let before: string[] = [];
    await hedgeAndChaosTraffic(
      (component) => metrics.add(component),
      async () => {
        before = (await collect()).map((line) => line.replace(/ \S+$/, ''));
      },
    );
    expect(before.length).toBe(2 + 1 + 4 + 1 + 2);
    const after = await collect();
    expect(after.map((line) => line.replace(/ \S+$/, ''))).toEqual(before);
    expect(after).toContain('breakwater.hedge.wins{name="h",attempt="4"} 75');
    expect(after).toContain('breakwater.chaos.calls{name="c",strategy="fault",injected="true"} 200');
  });

  it('attribute values: a name goes through labelValue as everywhere (a lone surrogate escaped)', async () => {
    const { metrics, collect } = exporter();
    const clock = newClock();
    metrics.add(new Hedge('a\ud800', { clock }));
    metrics.add(new FaultInjection('b\udbff', { fault: new Error('x'), clock }));
    expect(await collect('breakwater.hedge.attempts', 'breakwater.chaos.calls')).toEqual([
      'breakwater.chaos.calls{name="b\\uDBFF",strategy="fault",injected="false"} 0',
      'breakwater.chaos.calls{name="b\\uDBFF",strategy="fault",injected="true"} 0',
      'breakwater.hedge.attempts{name="a\\uD800"} 0',
    ]);
  });
});
