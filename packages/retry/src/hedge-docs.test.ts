import { exportsWithoutExample } from '@breakwater/test-support';
import { describe, expect, it } from 'vitest';

// Every public export of the hedge has TSDoc with an @example (house rule); this keeps it so.
describe('Hedge: TSDoc', () => {
  it('every hedge export of index.ts is declared in src with TSDoc that has an @example', () => {
    const { names, undocumented } = exportsWithoutExample(new URL('.', import.meta.url));
    const hedge = names.filter((n) => /hedge/i.test(n));
    expect(hedge).toEqual([
      'Hedge',
      'HedgeRegistry',
      'HedgeDelay',
      'HEDGE_OPTIONS',
      'resolveHedgeConfig',
      'HedgeConfig',
      'HedgeDelaySetting',
      'HedgeOutcome',
      'HedgePercentileDelay',
      'ResolvedHedgeConfig',
      'HEDGE_EVENT_TYPES',
      'HedgeEvents',
      'HedgeMetrics',
    ]);
    expect(undocumented.filter((n) => hedge.includes(n))).toEqual([]);
  });
});
