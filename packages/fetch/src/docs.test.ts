import { exportsWithoutExample } from '@breakwater/test-support';
import { describe, expect, it } from 'vitest';

// Every public export has TSDoc with an @example (house rule); this keeps it so.
describe('TSDoc', () => {
  it('every export of index.ts is declared with TSDoc that has an @example', () => {
    const { names, undocumented } = exportsWithoutExample(new URL('.', import.meta.url));
    expect(names).toEqual(
      expect.arrayContaining(['resilientFetch', 'FetchFailedError', 'NotRetriedError', 'isIdempotent', 'RESILIENT_FETCH_OPTIONS', 'OriginBreakers']),
    );
    expect(undocumented).toEqual([]);
  });
});
