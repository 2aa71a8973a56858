// An adaptive limiter's algorithm as a scenario names it: `algorithm: vegas`, or with the
// algorithm's own options, `algorithm: { vegas: { smoothing: 0.5 } }`. The simulator builds it (so
// Vegas' probe jitter draws from the run's seeded random: a run repeats to the last number) and
// hands it to the limiter as a LimitAlgorithm; the limiter's `initialLimit`, `minLimit` and
// `maxLimit` go to the algorithm, as the limiter does with a named one.
import { aimd, gradient2, vegas, type LimitAlgorithm } from '@breakwater/adaptive';

const NAMES = ['vegas', 'aimd', 'gradient2'] as const;
type Name = (typeof NAMES)[number];

/** What `algorithm:` may be, for error messages. */
const FORMS = 'one of vegas, aimd, gradient2, or one of them with its options: { vegas: { smoothing: 0.5 } }';

function nameAndOptions(source: string, algorithm: unknown): [Name, Record<string, unknown>] {
  if (algorithm === undefined || algorithm === null) return ['vegas', {}]; // the limiter's default
  if (typeof algorithm === 'string' && (NAMES as readonly string[]).includes(algorithm)) return [algorithm as Name, {}];
  if (typeof algorithm === 'object' && !Array.isArray(algorithm)) {
    const entries = Object.entries(algorithm);
    const [name, options] = entries[0] ?? [];
    if (
      entries.length === 1 &&
      (NAMES as readonly string[]).includes(name!) &&
      (options === null || (typeof options === 'object' && !Array.isArray(options)))
    ) {
      return [name as Name, { ...(options as Record<string, unknown> | null) }];
    }
  }
  throw new TypeError(`${source}: algorithm must be ${FORMS}, got ${JSON.stringify(algorithm)}`);
}

/**
 * Builds the algorithm of an `adaptiveLimiter:` layer from its options (`algorithm`,
 * `initialLimit`, `minLimit`, `maxLimit`), drawing Vegas' jitter from `random`; returns it and
 * the limiter's other options.
 */
export function scenarioAlgorithm(
  name: string,
  options: Readonly<Record<string, unknown>>,
  random: () => number,
): { algorithm: LimitAlgorithm; rest: Record<string, unknown> } {
  const source = `AdaptiveLimiter '${name}'`;
  const { algorithm, initialLimit, minLimit, maxLimit, ...rest } = options;
  const [kind, own] = nameAndOptions(source, algorithm);
  const limits = Object.fromEntries(Object.entries({ initialLimit, minLimit, maxLimit }).filter(([, v]) => v !== undefined));
  const merged = { ...own, ...limits };
  try {
    const built = kind === 'aimd' ? aimd(merged) : kind === 'gradient2' ? gradient2(merged) : vegas({ ...merged, random });
    return { algorithm: built, rest };
  } catch (error) {
    if (error instanceof RangeError) throw new RangeError(`${source}: algorithm ${error.message}`, { cause: error });
    if (error instanceof TypeError) throw new TypeError(`${source}: algorithm ${error.message}`, { cause: error });
    throw error;
  }
}
