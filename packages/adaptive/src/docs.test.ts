import { exportsWithoutExample } from '@breakwater/test-support';
import { describe, expect, it } from 'vitest';

// Every public export has TSDoc with an @example (house rule); this keeps it so.
describe('TSDoc', () => {
  it('every export of index.ts is declared with TSDoc that has an @example', () => {
    const { names, undocumented } = exportsWithoutExample(new URL('.', import.meta.url));
    expect(names).toEqual(expect.arrayContaining(['AdaptiveLimiter', 'AdaptiveThrottle', 'AdaptiveToken', 'AdaptiveThrottleToken', 'AdaptivePartitionPolicy']));
    // The algorithms are declared in limit/ (read there, from its own index.ts); the errors are @breakwater/core's.
    const limit = exportsWithoutExample(new URL('./limit/', import.meta.url));
    const fromLimit = names.filter((name) => limit.names.includes(name));
    expect(fromLimit).toEqual(expect.arrayContaining(['aimd', 'vegas', 'gradient2', 'windowed', 'LimitAlgorithm']));
    expect(limit.undocumented.filter((name) => fromLimit.includes(name))).toEqual([]);
    expect(undocumented.filter((name) => !fromLimit.includes(name) && name !== 'RequestNotPermittedError' && name !== 'TimeoutError')).toEqual([]);
  });
});
