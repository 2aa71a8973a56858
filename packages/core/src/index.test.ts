import { describe, expect, it } from 'vitest';
import * as core from './index.js';

describe('@breakwater/core entry', () => {
  it('exports the runtime surface the other packages build on', () => {
    expect(Object.keys(core)).toEqual(
      expect.arrayContaining([
        'systemClock',
        'VirtualClock',
        'parseDuration',
        'ConfigReader',
        'describeValue',
        'BreakwaterError',
        'BulkheadFullError',
        'CallNotPermittedError',
        'IllegalStateTransitionError',
        'MaxRetriesExceededError',
        'RequestNotPermittedError',
        'ResultRecordedAsFailureError',
        'TimeoutError',
        'withoutStack',
        'EventPublisher',
        'NEVER_ABORTED',
        'ROOT_CONTEXT',
        'toContext',
        'onAbort',
        'sleep',
        'errorMatcher',
        'Registry',
        'LinkedQueue',
      ]),
    );
  });

  it('exports nothing that is undefined', () => {
    for (const [name, value] of Object.entries(core)) expect(value, name).toBeDefined();
  });
});
