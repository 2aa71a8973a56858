/** The methods RFC 9110 §9.2.2 calls idempotent. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/**
 * Whether `request` may be sent again after a failure without `retryNonIdempotent` or `retryOn`
 * (contract: docs/fetch.md): an idempotent method (GET, HEAD, OPTIONS, PUT, DELETE, TRACE), or any
 * request with an `Idempotency-Key` header (the IETF draft Stripe and others implement: the server
 * deduplicates by it).
 *
 * @example
 * ```ts
 * isIdempotent(new Request('https://api.example.com/orders', { method: 'POST', headers: { 'Idempotency-Key': key } })); // true
 * ```
 */
export function isIdempotent(request: Request): boolean {
  return IDEMPOTENT.has(request.method.toUpperCase()) || request.headers.has('idempotency-key');
}
