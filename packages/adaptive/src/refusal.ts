import { RequestNotPermittedError } from '@breakwater/core';
import { withoutStack } from '@breakwater/core/internal';

/**
 * The error of a local refusal by an adaptive limiter or a throttle: core's
 * `RequestNotPermittedError` (so code that handles a rate limiter's refusal handles these too),
 * its `rateLimiterName` the component's name, its `waitMs` 0 (no estimate: a slot frees when a
 * call ends), and its message saying why (`detail`, after `source`). Built without a stack unless
 * `stackTraces`.
 */
export function refusal(source: string, name: string, detail: string, stackTraces: boolean): RequestNotPermittedError {
  const message = `${source} ${detail}`;
  return stackTraces ? new RequestNotPermittedError(name, 0, message) : withoutStack(() => new RequestNotPermittedError(name, 0, message));
}
