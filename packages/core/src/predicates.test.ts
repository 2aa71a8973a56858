import { describe, expect, it, vi } from 'vitest';
import { BreakwaterError, CallNotPermittedError, TimeoutError } from './errors.js';
import { errorMatcher } from './predicates.js';

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
class ServerError extends HttpError {}

describe('errorMatcher', () => {
  it('with neither classes nor predicate answers whenUnset for anything', () => {
    const yes = errorMatcher(undefined, undefined, true);
    const no = errorMatcher([], undefined, false);
    for (const thrown of [new Error('x'), 'x', undefined, null, 42]) {
      expect(yes(thrown)).toBe(true);
      expect(no(thrown)).toBe(false);
    }
  });

  it('classes match is-a: the class and its subclasses, nothing else', () => {
    const isHttp = errorMatcher([HttpError], undefined, false);
    expect(isHttp(new HttpError(404))).toBe(true);
    expect(isHttp(new ServerError(503))).toBe(true);
    expect(isHttp(new Error('plain'))).toBe(false);
    expect(isHttp(new TypeError('t'))).toBe(false);
  });

  it('a base class matches every error deriving from it (BreakwaterError, Error)', () => {
    const isOurs = errorMatcher([BreakwaterError], undefined, false);
    expect(isOurs(new TimeoutError('pg', 1))).toBe(true);
    expect(isOurs(new CallNotPermittedError('pg', 'OPEN'))).toBe(true);
    expect(isOurs(new Error('theirs'))).toBe(false);
    expect(errorMatcher([Error], undefined, false)(new ServerError(500))).toBe(true);
  });

  it('any of several classes matches', () => {
    const m = errorMatcher([TypeError, TimeoutError], undefined, false);
    expect(m(new TypeError('t'))).toBe(true);
    expect(m(new TimeoutError('pg', 1))).toBe(true);
    expect(m(new RangeError('r'))).toBe(false);
  });

  it('thrown non-Errors never match a class', () => {
    const m = errorMatcher([Error], undefined, true);
    for (const thrown of ['x', undefined, null, 42, { message: 'like an error' }]) expect(m(thrown)).toBe(false);
  });

  it('a predicate alone decides, and sees the thrown value as it is', () => {
    const predicate = vi.fn((e: unknown) => e === 'retry me');
    const m = errorMatcher(undefined, predicate, false);
    expect(m('retry me')).toBe(true);
    expect(m('no')).toBe(false);
    expect(predicate.mock.calls).toEqual([['retry me'], ['no']]);
  });

  it('classes and predicate are OR-ed; the predicate is not asked when a class matches', () => {
    const predicate = vi.fn((e: unknown) => (e as { code?: string })?.code === 'ECONNRESET');
    const m = errorMatcher([TimeoutError], predicate, false);
    expect(m(new TimeoutError('pg', 600))).toBe(true);
    expect(predicate).not.toHaveBeenCalled();
    expect(m(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(true);
    expect(m(new Error('other'))).toBe(false);
    expect(predicate).toHaveBeenCalledTimes(2);
  });

  it('whenUnset does not matter once classes or a predicate are given', () => {
    expect(errorMatcher([HttpError], undefined, true)(new Error('x'))).toBe(false);
    expect(errorMatcher(undefined, () => false, true)(new Error('x'))).toBe(false);
    expect(errorMatcher([], () => true, false)(new Error('x'))).toBe(true);
  });
});
