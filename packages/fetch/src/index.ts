export { resilientFetch } from './resilient-fetch.js';
export type { FetchPipeline } from './fetch-call.js';
export { FetchFailedError, NotRetriedError } from './fetch-failed-error.js';
export { isIdempotent } from './idempotency.js';
export {
  RESILIENT_FETCH_OPTIONS,
  type FetchFunction,
  type OriginBreaker,
  type OriginBreakers,
  type ResilientFetchOptions,
} from './options.js';
