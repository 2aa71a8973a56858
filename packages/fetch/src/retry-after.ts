/**
 * The wait a `Retry-After` header asks for, in ms (contract: docs/fetch.md): delay-seconds (a
 * non-negative integer) × 1000, or an HTTP date less the response's own `Date` header when it has
 * a valid one (both the server's clock: no skew between it and ours), else less `now()`. A date in
 * the past is 0. `undefined` when the header is absent or neither form.
 */
export function retryAfterMs(retryAfter: string | null, date: string | null, now: () => number): number | undefined {
  if (retryAfter === null) return undefined;
  const value = retryAfter.trim();
  if (/^\d+$/.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  const at = httpDate(value);
  if (at === undefined) return undefined;
  const reference = (date === null ? undefined : httpDate(date.trim())) ?? now();
  return Math.max(0, at - reference);
}

// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850 and asctime forms that
// RFC 9110 §5.6.7 asks a recipient to accept: all three are read by Date.parse, asctime's (which
// names no zone, and means GMT) with ' GMT' added, lest it be read as local time. A bare number was
// handled above; anything Date.parse reads that has no letter (e.g. '2026-12-02') is refused.
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/;

function httpDate(value: string): number | undefined {
  if (!/[A-Za-z]{3}/.test(value)) return undefined;
  const ms = Date.parse(ASCTIME.test(value) ? `${value} GMT` : value);
  return Number.isFinite(ms) ? ms : undefined;
}
