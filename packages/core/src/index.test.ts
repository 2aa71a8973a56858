import { describe, expect, it } from 'vitest';
import * as core from './index.js';
import * as internal from './internal.js';

describe('@breakwater/core entry', () => {
  it('exports the runtime surface the other packages build on', () => {
    expect(Object.keys(core)).toEqual(
      expect.arrayContaining([
        'systemClock',
        'VirtualClock',
        'parseDuration',
        'ConfigReader',
        'BreakwaterError',
        'BulkheadFullError',
        'CallNotPermittedError',
        'IllegalStateTransitionError',
        'MaxRetriesExceededError',
        'RequestNotPermittedError',
        'ResultRecordedAsFailureError',
        'TimeoutError',
        'EventPublisher',
        'toContext',
        'onAbort',
        'sleep',
        'errorMatcher',
        'Registry',
      ]),
    );
  });

  it('exports nothing that is undefined', () => {
    for (const [name, value] of Object.entries(core)) expect(value, name).toBeDefined();
    for (const [name, value] of Object.entries(internal)) expect(value, name).toBeDefined();
  });
});

describe('@breakwater/core/internal entry', () => {
  it("has the plumbing Breakwater's own packages are built with, and the main entry does not", () => {
    const plumbing = [
      'enterCall',
      'invoke',
      'follow',
      'raceAbort',
      'holdProcess',
      'releaseProcess',
      'keepsProcessAlive',
      'LinkedQueue',
      'WaitQueue',
      'warnOnce',
      'callbackThrew',
      'describeThrown',
      'withoutStack',
      'describeValue',
      'isPlainObject',
      'closest',
      'didYouMean',
      'NEVER_ABORTED',
      'ROOT_CONTEXT',
      'isArgsAwareLayer',
    ];
    expect(Object.keys(internal)).toEqual(expect.arrayContaining(plumbing));
    for (const name of plumbing) expect(core, name).not.toHaveProperty(name);
  });

  it('shares no name with the main entry (each export lives in one place)', () => {
    expect(Object.keys(internal).filter((name) => name in core)).toEqual([]);
  });
});
