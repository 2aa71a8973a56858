/** How `describe()` prints the kinds of Breakwater's own policies. */
const KIND_LABELS: Readonly<Record<string, string>> = {
  retry: 'Retry',
  circuitBreaker: 'CircuitBreaker',
  timeLimiter: 'TimeLimiter',
  bulkhead: 'Bulkhead',
  poolBulkhead: 'PoolBulkhead',
  rateLimiter: 'RateLimiter',
  fallback: 'Fallback',
};

/**
 * One layer as `describe()` prints it: `CircuitBreaker 'pg'` for Breakwater's kinds (the class
 * name), the kind as given for any other (`hedge 'pg'`).
 * @internal
 */
export function layerLabel(kind: string, name: string): string {
  return `${Object.hasOwn(KIND_LABELS, kind) ? KIND_LABELS[kind] : kind} '${name}'`;
}
