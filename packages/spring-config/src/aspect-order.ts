// The order of Resilience4j's Spring aspects (`<kind>-aspect-order`): Resilience4j's defaults
// with the file's values applied, outermost first; pipeline(name) builds its layers in it.
import type { FromConfigNote, AspectKind, AspectOrderEntry } from './types.js';

/** Spring's `Ordered.LOWEST_PRECEDENCE` (Java's `Integer.MAX_VALUE`). */
const LOWEST_PRECEDENCE = 2_147_483_647;

/**
 * Resilience4j's default orders (its `*ConfigurationProperties`), outermost first:
 * Retry ( CircuitBreaker ( RateLimiter ( TimeLimiter ( Bulkhead ( fn ) ) ) ) ).
 */
const DEFAULT_ASPECT_ORDER: readonly AspectOrderEntry[] = [
  { kind: 'retry', order: LOWEST_PRECEDENCE - 5 },
  { kind: 'circuitBreaker', order: LOWEST_PRECEDENCE - 4 },
  { kind: 'rateLimiter', order: LOWEST_PRECEDENCE - 3 },
  { kind: 'timeLimiter', order: LOWEST_PRECEDENCE - 2 },
  { kind: 'bulkhead', order: LOWEST_PRECEDENCE - 1 },
];

/** Why an aspect order is read and what to do with it (a note). */
export const ASPECT_ORDER_NOTE =
  "read into aspectOrder: fromConfig(…).pipeline(name) builds its layers in this order (outermost first), as the Java service's Spring aspects wrap an annotated method";

/**
 * The aspects outermost first: the defaults with `given` (an order and where it was written, by
 * kind) applied; a lower order is further out, a tie keeps the default order between the two and
 * is noted in `notes`.
 */
export function aspectOrder(given: ReadonlyMap<AspectKind, { readonly at: string; readonly order: number }>, notes: FromConfigNote[]): AspectOrderEntry[] {
  const entries = DEFAULT_ASPECT_ORDER.map((d) => ({ kind: d.kind, order: given.get(d.kind)?.order ?? d.order }));
  // Array.prototype.sort is stable: a tie keeps the default order.
  const sorted = [...entries].sort((a, b) => a.order - b.order);
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    if (a.order !== b.order) continue;
    const at = given.get(b.kind)?.at ?? given.get(a.kind)!.at;
    notes.push({
      path: at,
      message: `${a.kind} and ${b.kind} have the same aspect order ${a.order}: Spring leaves their order undefined; aspectOrder keeps Resilience4j's default order between them`,
    });
  }
  return sorted;
}
