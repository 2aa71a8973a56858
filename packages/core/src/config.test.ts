import { describe, expect, it } from 'vitest';
import { systemClock, type Clock } from './clock.js';
import { closest, didYouMean, ConfigReader, describeValue } from './config.js';
import { VirtualClock } from './virtual-clock.js';

interface Options {
  failureRateThreshold?: number;
  slidingWindowSize?: number;
  ratio?: number;
  limit?: number;
  waitDurationInOpenState?: number | string;
  waitIntervalFunctionInOpenState?: (attempt: number) => number;
  automaticTransition?: boolean;
  slidingWindowType?: string;
  recordException?: (e: unknown) => boolean;
  ignoreExceptions?: unknown[];
  signal?: unknown;
  clock?: unknown;
}

const KEYS = [
  'failureRateThreshold',
  'slidingWindowSize',
  'ratio',
  'limit',
  'waitDurationInOpenState',
  'waitIntervalFunctionInOpenState',
  'automaticTransition',
  'slidingWindowType',
  'recordException',
  'ignoreExceptions',
  'signal',
  'clock',
] as const;

const reader = (config: unknown) => new ConfigReader<Options>('CircuitBreaker', 'pg', config as Options, KEYS);

/** Expects `f` to throw exactly this class with exactly this message. */
function expectThrow(f: () => unknown, kind: typeof TypeError | typeof RangeError, message: string): void {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(kind);
  expect((thrown as Error).constructor).toBe(kind);
  expect((thrown as Error).message).toBe(message);
}

describe('describeValue', () => {
  it.each<[unknown, string]>([
    ['x', "'x'"],
    ['', "''"],
    [0, '0'],
    [-1.5, '-1.5'],
    [Number.NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [10n, '10n'],
    [true, 'true'],
    [null, 'null'],
    [undefined, 'undefined'],
    [Symbol('s'), 'Symbol(s)'],
    [() => 1, 'a function'],
    [class Foo {}, 'a function'],
    [[1, 2], 'an array'],
    [{ a: 1 }, 'an object'],
    [new Date(0), 'a Date'],
    [new Map(), 'a Map'],
    [Object.create(null), 'an object'],
    ['x'.repeat(401), `'${'x'.repeat(20)}…' (401 characters)`],
  ])('renders %s as %s', (value, text) => {
    expect(describeValue(value)).toBe(text);
  });
});

describe('ConfigReader: the config object', () => {
  it('accepts undefined, null and {} as "no options"', () => {
    for (const config of [undefined, null, {}]) {
      const read = reader(config);
      expect(read.number('failureRateThreshold', 50, { gt: 0, lte: 100 })).toBe(50);
      expect(read.has('failureRateThreshold')).toBe(false);
    }
  });

  it('refuses a config that is not an object', () => {
    expectThrow(() => reader('fast'), TypeError, "CircuitBreaker 'pg': config must be a plain object of options, got 'fast'");
    expectThrow(() => reader(5), TypeError, "CircuitBreaker 'pg': config must be a plain object of options, got 5");
    expectThrow(() => reader([]), TypeError, "CircuitBreaker 'pg': config must be a plain object of options, got an array");
    expectThrow(() => reader(new Map([['failureRateThreshold', 50]])), TypeError, "CircuitBreaker 'pg': config must be a plain object of options, got a Map");
    expectThrow(() => reader(new Date()), TypeError, "CircuitBreaker 'pg': config must be a plain object of options, got a Date");
  });

  it('refuses an unknown key with a TypeError naming it and listing the known ones', () => {
    expectThrow(
      () => new ConfigReader<Options>('CircuitBreaker', 'pg', { failureRate: 50 } as Options, ['failureRateThreshold', 'clock']),
      TypeError,
      "CircuitBreaker 'pg': unknown option 'failureRate' (known options: failureRateThreshold, clock)",
    );
  });

  it('refuses an unknown key even when its value is undefined (a misspelt option is never silent)', () => {
    expect(() => reader({ failureRatethreshold: undefined })).toThrow(TypeError);
    expect(() => reader({ failureRatethreshold: undefined })).toThrow(
      /^CircuitBreaker 'pg': unknown option 'failureRatethreshold' \(did you mean 'failureRateThreshold'\?\) \(known options: /,
    );
  });

  it('refuses a name that is not a non-empty string', () => {
    expectThrow(() => new ConfigReader('CircuitBreaker', '', {}, []), TypeError, "CircuitBreaker: name must be a non-empty string, got ''");
    expectThrow(
      () => new ConfigReader('CircuitBreaker', 42 as unknown as string, {}, []),
      TypeError,
      'CircuitBreaker: name must be a non-empty string, got 42',
    );
    expectThrow(
      () => new ConfigReader('CircuitBreaker', null as unknown as string, {}, []),
      TypeError,
      'CircuitBreaker: name must be a non-empty string, got null',
    );
    expectThrow(
      () => new ConfigReader('CircuitBreaker', undefined as unknown as string, {}, []),
      TypeError,
      'CircuitBreaker: name must be a non-empty string, got undefined',
    );
  });

  it('without a name (a registry) the messages name the component alone', () => {
    const read = ConfigReader.unnamed<{ maxSize?: number }>('CircuitBreakerRegistry', { maxSize: 0 }, ['maxSize']);
    expectThrow(() => read.number('maxSize', Infinity, { gte: 1 }), RangeError, 'CircuitBreakerRegistry: maxSize must be >= 1, got 0');
  });

  it('has(): an option given as undefined counts as absent', () => {
    const read = reader({ failureRateThreshold: undefined, slidingWindowSize: 10 });
    expect(read.has('failureRateThreshold')).toBe(false);
    expect(read.has('slidingWindowSize')).toBe(true);
    expect(read.number('failureRateThreshold', 50, { gt: 0, lte: 100 })).toBe(50);
  });
});

describe('ConfigReader.number', () => {
  it('accepts values in range, bounds as written', () => {
    const read = reader({ failureRateThreshold: 100, slidingWindowSize: 1, ratio: 0, limit: 5 });
    expect(read.number('failureRateThreshold', 50, { gt: 0, lte: 100 })).toBe(100);
    expect(read.number('slidingWindowSize', 100, { integer: true, gte: 1 })).toBe(1);
    expect(read.number('ratio', 1, { gte: 0, lte: 1 })).toBe(0);
    expect(read.number('limit', 0, { lte: 5 })).toBe(5);
  });

  it('returns the fallback when absent', () => {
    expect(reader({}).number('failureRateThreshold', 50, { gt: 0, lte: 100 })).toBe(50);
  });

  it.each<[string, object, unknown, string]>([
    ['the example of docs/conventions.md', { gt: 0, lte: 100 }, 0, 'failureRateThreshold must be in (0, 100], got 0'],
    ['above the upper bound', { gt: 0, lte: 100 }, 100.5, 'failureRateThreshold must be in (0, 100], got 100.5'],
    ['a closed range', { gte: 0, lte: 1 }, 1.1, 'failureRateThreshold must be in [0, 1], got 1.1'],
    ['an exclusive lower bound', { gt: 0 }, 0, 'failureRateThreshold must be > 0, got 0'],
    ['an inclusive lower bound', { gte: 1 }, 0.5, 'failureRateThreshold must be >= 1, got 0.5'],
    ['an upper bound', { lte: 5 }, 6, 'failureRateThreshold must be <= 5, got 6'],
    ['an integer', { integer: true, gte: 1 }, 1.5, 'failureRateThreshold must be an integer >= 1, got 1.5'],
    ['an integer range', { integer: true, gte: 1, lte: 10 }, 11, 'failureRateThreshold must be an integer in [1, 10], got 11'],
    ['NaN', { gt: 0, lte: 100 }, Number.NaN, 'failureRateThreshold must be in (0, 100], got NaN'],
    ['-Infinity with no bound', {}, -Infinity, 'failureRateThreshold must be finite, got -Infinity'],
    ['Infinity for an integer', { integer: true, gte: 1 }, Infinity, 'failureRateThreshold must be an integer >= 1, got Infinity'],
    ['Infinity above an upper bound', { gt: 0, lte: 100 }, Infinity, 'failureRateThreshold must be in (0, 100], got Infinity'],
  ])('refuses a value out of range with a RangeError (%s)', (_, range, value, message) => {
    expectThrow(() => reader({ failureRateThreshold: value }).number('failureRateThreshold', 50, range), RangeError, `CircuitBreaker 'pg': ${message}`);
  });

  it('accepts Infinity for a number that is not an integer and has no upper bound ("never")', () => {
    expect(reader({ failureRateThreshold: Infinity }).number('failureRateThreshold', 1, { gt: 0 })).toBe(Infinity);
  });

  it.each<[unknown, string]>([
    ['50', "'50'"],
    [true, 'true'],
    [null, 'null'],
    [50n, '50n'],
    [{}, 'an object'],
  ])('refuses a non-number %s with a TypeError', (value, shown) => {
    expectThrow(
      () => reader({ failureRateThreshold: value }).number('failureRateThreshold', 50, { gt: 0, lte: 100 }),
      TypeError,
      `CircuitBreaker 'pg': failureRateThreshold must be a number, got ${shown}`,
    );
  });
});

describe('ConfigReader.duration', () => {
  it('accepts milliseconds and duration strings, in milliseconds', () => {
    const range = { gte: 0 };
    expect(reader({ waitDurationInOpenState: 1500 }).duration('waitDurationInOpenState', 60_000, range)).toBe(1500);
    expect(reader({ waitDurationInOpenState: '250ms' }).duration('waitDurationInOpenState', 60_000, range)).toBe(250);
    expect(reader({ waitDurationInOpenState: '10s' }).duration('waitDurationInOpenState', 60_000, range)).toBe(10_000);
    expect(reader({ waitDurationInOpenState: '1.5m' }).duration('waitDurationInOpenState', 60_000, range)).toBe(90_000);
    expect(reader({ waitDurationInOpenState: '2h' }).duration('waitDurationInOpenState', 60_000, range)).toBe(7_200_000);
    expect(reader({}).duration('waitDurationInOpenState', 60_000, range)).toBe(60_000);
  });

  it('refuses a bad duration with a TypeError naming the option', () => {
    for (const [value, shown] of [
      ['soon', "'soon'"],
      ['10', "'10'"],
      ['-1s', "'-1s'"],
      [true, 'true'],
      [Number.NaN, 'NaN'],
    ] as const) {
      expectThrow(
        () => reader({ waitDurationInOpenState: value }).duration('waitDurationInOpenState', 60_000, { gte: 0 }),
        TypeError,
        `CircuitBreaker 'pg': waitDurationInOpenState must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got ${shown}`,
      );
    }
  });

  it('refuses a duration out of range with a RangeError showing the value as given', () => {
    expectThrow(
      () => reader({ waitDurationInOpenState: '0s' }).duration('waitDurationInOpenState', 60_000, { gt: 0 }),
      RangeError,
      "CircuitBreaker 'pg': waitDurationInOpenState must be > 0, got '0s'",
    );
    expectThrow(
      () => reader({ waitDurationInOpenState: -5 }).duration('waitDurationInOpenState', 60_000, { gte: 0 }),
      RangeError,
      "CircuitBreaker 'pg': waitDurationInOpenState must be >= 0, got -5",
    );
    expectThrow(
      () => reader({ waitDurationInOpenState: 1.5 }).duration('waitDurationInOpenState', 60_000, { integer: true, gte: 1 }),
      RangeError,
      "CircuitBreaker 'pg': waitDurationInOpenState must be an integer >= 1, got 1.5",
    );
  });
});

describe('ConfigReader.boolean / oneOf / fn / classes / instance', () => {
  it('boolean: true, false or the fallback; anything else is a TypeError', () => {
    expect(reader({ automaticTransition: true }).boolean('automaticTransition', false)).toBe(true);
    expect(reader({ automaticTransition: false }).boolean('automaticTransition', true)).toBe(false);
    expect(reader({}).boolean('automaticTransition', true)).toBe(true);
    expectThrow(
      () => reader({ automaticTransition: 'yes' }).boolean('automaticTransition', false),
      TypeError,
      "CircuitBreaker 'pg': automaticTransition must be true or false, got 'yes'",
    );
    expectThrow(
      () => reader({ automaticTransition: 1 }).boolean('automaticTransition', false),
      TypeError,
      "CircuitBreaker 'pg': automaticTransition must be true or false, got 1",
    );
  });

  it('oneOf: one of the values, or the fallback; anything else is a TypeError listing them', () => {
    const values = ['COUNT_BASED', 'TIME_BASED'] as const;
    expect(reader({ slidingWindowType: 'TIME_BASED' }).oneOf('slidingWindowType', 'COUNT_BASED', values)).toBe('TIME_BASED');
    expect(reader({}).oneOf('slidingWindowType', 'COUNT_BASED', values)).toBe('COUNT_BASED');
    expectThrow(
      () => reader({ slidingWindowType: 'COUNT' }).oneOf('slidingWindowType', 'COUNT_BASED', values),
      TypeError,
      "CircuitBreaker 'pg': slidingWindowType must be one of 'COUNT_BASED', 'TIME_BASED', got 'COUNT'",
    );
    expectThrow(
      () => reader({ slidingWindowType: 'time_based' }).oneOf('slidingWindowType', 'COUNT_BASED', values),
      TypeError,
      "CircuitBreaker 'pg': slidingWindowType must be one of 'COUNT_BASED', 'TIME_BASED', got 'time_based'",
    );
  });

  it('fn: a function (returned as is) or undefined; anything else is a TypeError', () => {
    const f = (e: unknown) => e instanceof TypeError;
    expect(reader({ recordException: f }).fn('recordException')).toBe(f);
    expect(reader({}).fn('recordException')).toBeUndefined();
    expectThrow(() => reader({ recordException: 42 }).fn('recordException'), TypeError, "CircuitBreaker 'pg': recordException must be a function, got 42");
  });

  it('classes: an array of constructors (returned as is) or undefined; anything else is a TypeError', () => {
    const list = [TypeError, RangeError];
    expect(reader({ ignoreExceptions: list }).classes('ignoreExceptions')).toBe(list);
    expect(reader({ ignoreExceptions: [] }).classes('ignoreExceptions')).toEqual([]);
    expect(reader({}).classes('ignoreExceptions')).toBeUndefined();
    expectThrow(
      () => reader({ ignoreExceptions: TypeError }).classes('ignoreExceptions'),
      TypeError,
      "CircuitBreaker 'pg': ignoreExceptions must be an array of error classes, got a function",
    );
    expectThrow(
      () => reader({ ignoreExceptions: [TypeError, 'RangeError'] }).classes('ignoreExceptions'),
      TypeError,
      "CircuitBreaker 'pg': ignoreExceptions must be an array of error classes, got an array",
    );
  });

  it('instance: a value the check accepts (returned as is) or undefined; else a TypeError with the description', () => {
    const isSignal = (v: unknown) => v instanceof AbortSignal;
    const signal = new AbortController().signal;
    expect(reader({ signal }).instance('signal', 'an AbortSignal', isSignal)).toBe(signal);
    expect(reader({}).instance('signal', 'an AbortSignal', isSignal)).toBeUndefined();
    expectThrow(
      () => reader({ signal: {} }).instance('signal', 'an AbortSignal', isSignal),
      TypeError,
      "CircuitBreaker 'pg': signal must be an AbortSignal, got an object",
    );
  });
});

describe('ConfigReader.clock', () => {
  it('is the systemClock by default, or the clock given (a VirtualClock, or any object with the three methods)', () => {
    expect(reader({}).clock()).toBe(systemClock);
    const virtual = new VirtualClock();
    expect(reader({ clock: virtual }).clock()).toBe(virtual);
    const custom: Clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => {} };
    expect(reader({ clock: custom }).clock()).toBe(custom);
  });

  it.each<[unknown, string]>([
    [{}, 'an object'],
    [{ now: () => 0, setTimeout: () => ({}) }, 'an object'],
    [null, 'null'],
    [Date, 'a function'],
    ['system', "'system'"],
  ])('refuses %s with a TypeError', (clock, shown) => {
    expectThrow(() => reader({ clock }).clock(), TypeError, `CircuitBreaker 'pg': clock must be a Clock (now, setTimeout, clearTimeout), got ${shown}`);
  });
});

describe('ConfigReader.clock: its reading', () => {
  it.each<[string, unknown, string]>([
    ['NaN', Number.NaN, 'NaN'],
    ['a string', '5', "'5'"],
    ['undefined', undefined, 'undefined'],
    ['Infinity', Infinity, 'Infinity'],
  ])('refuses a clock whose now() returns %s', (_, reading, shown) => {
    const clock = { now: () => reading, setTimeout: () => ({}), clearTimeout: () => {} };
    expectThrow(() => reader({ clock }).clock(), TypeError, `CircuitBreaker 'pg': clock.now() must return a finite number of milliseconds, got ${shown}`);
  });
});

describe('closest / didYouMean', () => {
  it('suggests the closest candidate within two edits (a swap of neighbours is one)', () => {
    expect(closest('sucess', ['success', 'error', 'ignoredError'])).toBe('success');
    expect(closest('sucsess', ['success', 'error'])).toBe('success');
    expect(closest('eror', ['success', 'error'])).toBe('error');
    expect(closest('slidingWindowSzie', ['slidingWindowSize', 'slidingWindowType'])).toBe('slidingWindowSize');
    expect(didYouMean('FAILURERATETHRESHOLD', ['failureRateThreshold'])).toBe(" (did you mean 'failureRateThreshold'?)");
  });

  it('suggests nothing for a word far from every candidate, or a short one two edits away', () => {
    expect(closest('banana', ['success', 'error'])).toBeUndefined();
    expect(closest('ab', ['xy'])).toBeUndefined();
    expect(didYouMean('banana', ['success'])).toBe('');
  });
});

describe('ConfigReader.duration: a string past any real duration', () => {
  it('is refused as not a duration, shown shortened (never as Infinity)', () => {
    const digits = `1${'0'.repeat(400)}ms`;
    expectThrow(
      () => reader({ waitDurationInOpenState: digits }).duration('waitDurationInOpenState', 60_000, { gte: 1 }),
      TypeError,
      `CircuitBreaker 'pg': waitDurationInOpenState must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got '1${'0'.repeat(19)}…' (403 characters)`,
    );
  });
});

describe('ConfigReader.exclusive / fail', () => {
  it('exclusive: one or the other is fine, both is a TypeError naming both', () => {
    expect(() => reader({ waitDurationInOpenState: 10 }).exclusive('waitDurationInOpenState', 'waitIntervalFunctionInOpenState')).not.toThrow();
    expect(() => reader({ waitIntervalFunctionInOpenState: () => 10 }).exclusive('waitDurationInOpenState', 'waitIntervalFunctionInOpenState')).not.toThrow();
    expect(() => reader({}).exclusive('waitDurationInOpenState', 'waitIntervalFunctionInOpenState')).not.toThrow();
    expect(() =>
      reader({ waitDurationInOpenState: undefined, waitIntervalFunctionInOpenState: () => 10 }).exclusive(
        'waitDurationInOpenState',
        'waitIntervalFunctionInOpenState',
      ),
    ).not.toThrow();
    expectThrow(
      () =>
        reader({ waitDurationInOpenState: 10, waitIntervalFunctionInOpenState: () => 10 }).exclusive(
          'waitDurationInOpenState',
          'waitIntervalFunctionInOpenState',
        ),
      TypeError,
      "CircuitBreaker 'pg': give waitDurationInOpenState or waitIntervalFunctionInOpenState, not both",
    );
  });

  it('fail: a RangeError by default, a TypeError when asked, in the same format', () => {
    const read = reader({});
    expectThrow(
      () => read.fail('limit', 'at most slidingWindowSize (10)', 11),
      RangeError,
      "CircuitBreaker 'pg': limit must be at most slidingWindowSize (10), got 11",
    );
    expectThrow(() => read.fail('anything', 'a string', 3, 'type'), TypeError, "CircuitBreaker 'pg': anything must be a string, got 3");
  });
});
