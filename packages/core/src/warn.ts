const warned = new WeakSet<object>();

/**
 * What a user's code threw, as text for a warning; never throws itself (`throw Object.create(null)`
 * has no `toString`).
 *
 * @example
 * ```ts
 * describeThrown(new TypeError('x')); // its stack
 * describeThrown('boom');             // 'boom'
 * ```
 */
export function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/**
 * Emits a process warning of `type` the first time it is called for `key` (a listener, a
 * callback, a component), and never again for that key: a throwing callback at 10 000 calls a
 * second is reported once, not 10 000 times.
 *
 * @example
 * ```ts
 * warnOnce(listener, `A listener of 'pg' threw: ${describeThrown(error)}`, 'BreakwaterListenerWarning');
 * ```
 */
export function warnOnce(key: object, message: string, type: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  process.emitWarning(message, { type });
}

/**
 * Reports that a user callback (a predicate, an interval function, `recordResult`, …) threw:
 * once per callback, as a `BreakwaterCallbackWarning` that says what the component did instead.
 * The component goes on with its safe choice; the call's own outcome is never replaced.
 *
 * @example
 * ```ts
 * try { recorded = config.recordResult(value); }
 * catch (error) { callbackThrew(`CircuitBreaker 'pg'`, 'recordResult', config.recordResult, error, 'the call is recorded as an error'); recorded = true; }
 * ```
 */
export function callbackThrew(source: string, option: string, callback: object, error: unknown, fallback: string): void {
  warnOnce(callback, `${source}: ${option} threw; ${fallback} (reported once): ${describeThrown(error)}`, 'BreakwaterCallbackWarning');
}
