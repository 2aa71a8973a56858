import { closest } from './config.js';

/** The words of a name, lower case: `PgPaymentClient#requestPayment(String)` → `pg`, `payment`, `client`, `request`, `payment`, `string`. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 2);
}

/**
 * The configured instance name a registry user most likely meant by `name`, for "did you mean":
 * a slip of at most two edits (core's {@link closest}); else the name sharing the most words
 * with it (`PgPaymentClient#requestPayment(String,PaymentRequest)` and `pg-simulator` share
 * `pg`), the first one on a tie; else the only configured name; else `undefined`.
 *
 * @example
 * ```ts
 * closestName('PgPaymentClient#requestPayment(String,PaymentRequest)', ['inventory', 'pg-simulator']); // 'pg-simulator'
 * closestName('pg-simulatr', ['pg-simulator', 'db']); // 'pg-simulator'
 * closestName('ledger', ['inventory', 'db']);         // undefined
 * ```
 */
export function closestName(name: string, configured: readonly string[]): string | undefined {
  const slip = closest(name, configured);
  if (slip !== undefined) return slip;
  const mine = new Set(words(name));
  let best: string | undefined;
  let bestShared = 0;
  for (const candidate of configured) {
    const shared = new Set(words(candidate).filter((w) => mine.has(w))).size;
    if (shared > bestShared) {
      best = candidate;
      bestShared = shared;
    }
  }
  return best ?? (configured.length === 1 ? configured[0] : undefined);
}
