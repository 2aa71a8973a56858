// The keys of a section besides its configs and instances: `tags`, `metrics` (Resilience4j Spring
// Boot's switches of its Micrometer metrics) and the section's aspect order.
import { ASPECT_ORDER_NOTE } from './aspect-order.js';
import { childPath, describeFound, failAt } from './paths.js';
import { relaxedName, unknownKeyMessage } from './relaxed-binding.js';
import type { FromConfigNote } from './types.js';
import { bindValue } from './values.js';
import { asMapping } from './yaml-tree.js';

/** Why `tags` and `metrics.*` are read and ignored. */
export const SECTION_IGNORED = {
  tags: 'Micrometer tags added to every metric; Breakwater’s metrics exporters take their own labels',
  metrics:
    'Resilience4j’s Micrometer metrics (metrics.enabled switches them on or off, metrics.legacy.enabled picks the older binder); Breakwater’s metrics come from the exporter you attach (@breakwater/prometheus, @breakwater/opentelemetry)',
} as const;

/** Java's `int` range, which Spring binds an aspect order to. */
const JAVA_INT = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** `tags`, written at `at`: a mapping, ignored (noted). */
export function readTags(at: string, value: unknown, notes: FromConfigNote[]): void {
  asMapping(at, value);
  notes.push({ path: at, message: `ignored: ${SECTION_IGNORED.tags}` });
}

/** `metrics`, written at `at`: `enabled` and `legacy.enabled`, booleans, each ignored (noted). */
export function readMetrics(at: string, value: unknown, notes: FromConfigNote[]): void {
  const readSwitches = (path: string, node: unknown, keys: readonly string[]) => {
    for (const [key, x] of Object.entries(asMapping(path, node))) {
      const keyAt = childPath(path, key);
      const name = keys.find((k) => relaxedName(k) === relaxedName(key));
      if (name === undefined) failAt(keyAt, unknownKeyMessage('key', key, keys));
      if (name === 'legacy') readSwitches(keyAt, x, ['enabled']);
      else {
        bindValue(keyAt, 'boolean', x, undefined);
        notes.push({ path: keyAt, message: `ignored: ${SECTION_IGNORED.metrics}` });
      }
    }
  };
  readSwitches(at, value, ['enabled', 'legacy']);
}

/** An aspect order, written at `at`: a Java `int` (noted). */
export function readAspectOrder(at: string, value: unknown, notes: FromConfigNote[]): number {
  const order = bindValue(at, 'number', value, undefined) as number;
  if (!Number.isInteger(order) || order < JAVA_INT.min || order > JAVA_INT.max) {
    failAt(at, `must be an integer in [${JAVA_INT.min}, ${JAVA_INT.max}] (a Java int), got ${describeFound(order)}`, 'range');
  }
  notes.push({ path: at, message: ASPECT_ORDER_NOTE });
  return order;
}
