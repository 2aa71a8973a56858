import * as pRetryModule from 'p-retry';

type PRetry = typeof pRetryModule.default;

/**
 * p-retry's function, from the ESM and the CommonJS build alike. p-retry is ESM only. The ESM
 * build gets it as the namespace's `default`. The CommonJS build `require`s p-retry (Node ≥ 20.19
 * loads an ES module with `require` and returns its namespace), and the bundler's interop then
 * wraps that namespace once more as a `default` (`(0, import_p_retry.default) is not a function`
 * before this file), so there the function is one `default` further down.
 */
export const pRetry: PRetry = unwrap(pRetryModule);

function unwrap(mod: unknown): PRetry {
  let candidate = mod;
  for (let depth = 0; depth < 3 && typeof candidate !== 'function'; depth++) {
    candidate = candidate !== null && typeof candidate === 'object' ? (candidate as { default?: unknown }).default : undefined;
  }
  if (typeof candidate !== 'function') throw new TypeError('@breakwater/retry: p-retry did not load as a function (its default export)');
  return candidate as PRetry;
}
