// Spring's exponential and randomised waits (`enable-exponential-backoff`,
// `exponential-backoff-multiplier`, `exponential-max-wait-duration[-in-open-state]`,
// `enable-randomized-wait`, `randomized-wait-factor`) folded into one IntervalFunction, with
// Resilience4j's formulas.
import { IntervalFunction } from '@breakwater/retry';
import type { Setting } from './blocks.js';
import { failAt } from './paths.js';
import type { PropertyRule, WaitFolding } from './sections.js';

/**
 * The options of a config or instance with its wait settings folded: `options` as built so far,
 * `backoffs` the settings of its backoff properties by Spring name, `settings` all of its settings
 * (to name the key an interval function refuses).
 */
export function foldWaits(
  at: string,
  wait: WaitFolding,
  options: Record<string, unknown>,
  backoffs: ReadonlyMap<string, Setting>,
  settings: ReadonlyMap<PropertyRule, Setting>,
): Record<string, unknown> {
  const { from, to, max, initial, replacedBy } = wait;
  const given = (option: string) => options[option] !== undefined;
  if (!given(from) && backoffs.size === 0 && (replacedBy === undefined || !given(replacedBy))) return options;
  // From here this block says how to wait: the other ways are cleared, so that a way of the
  // registry's default config (which every instance is laid over) does not clash with it.
  const cleared = { [from]: undefined, [to]: undefined, ...(replacedBy === undefined ? {} : { [replacedBy]: undefined }) };
  if (replacedBy !== undefined && given(replacedBy)) {
    // As in Resilience4j, an interval-bi-function replaces the (inherited) wait settings.
    return { ...options, ...cleared, [replacedBy]: options[replacedBy] };
  }
  const exponential = backoffs.get('enableExponentialBackoff');
  const randomized = backoffs.get('enableRandomizedWait');
  if (exponential?.value !== true && randomized?.value !== true) return { ...options, ...cleared, [from]: options[from] };
  if (exponential?.value === true && randomized?.value === true && wait.exclusiveFlags === true) {
    failAt(
      at,
      `enable-exponential-backoff (${exponential.at}) and enable-randomized-wait (${randomized.at}) cannot both be true for a circuit breaker (Resilience4j refuses them together too)`,
    );
  }
  const base = (options[from] as number | undefined) ?? initial;
  const multiplier = backoffs.get('exponentialBackoffMultiplier');
  const factor = backoffs.get('randomizedWaitFactor');
  const cap = backoffs.get(max);
  try {
    // Resilience4j's defaults: a multiplier of 1.5, a randomisation factor of 0.5, no cap.
    const multiplierValue = (multiplier?.value as number | undefined) ?? 1.5;
    const factorValue = (factor?.value as number | undefined) ?? 0.5;
    const capValue = cap?.value as number | undefined;
    const interval =
      exponential?.value === true && randomized?.value === true
        ? IntervalFunction.ofExponentialRandomBackoff(base, multiplierValue, factorValue, capValue)
        : exponential?.value === true
          ? IntervalFunction.ofExponentialBackoff(base, multiplierValue, capValue)
          : IntervalFunction.ofRandomized(base, factorValue);
    return { ...options, ...cleared, [to]: interval };
  } catch (error) {
    // Name the key the message is about.
    const message = (error as Error).message;
    const fromSetting = [...settings].find(([r]) => r.type === 'option' && r.option === from)?.[1];
    const culprit = /multiplier/.test(message)
      ? multiplier
      : /randomizationFactor/.test(message)
        ? factor
        : /max/i.test(message)
          ? cap
          : /interval/i.test(message)
            ? fromSetting
            : undefined;
    return failAt(culprit?.at ?? (exponential?.value === true ? exponential : randomized)!.at, message, error instanceof RangeError ? 'range' : 'type');
  }
}
