import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { enterCall, follow, invoke, raceAbort } from './call.js';
import { NEVER_ABORTED, ROOT_CONTEXT } from './policy.js';

/** A native promise whose own `then` calls both handlers (and then some). */
function bothHandlers<T>(value: T, error: unknown): Promise<T> {
  const p = Promise.resolve(value);
  Object.defineProperty(p, 'then', {
    value(onFulfilled: (v: T) => void, onRejected: (e: unknown) => void) {
      onFulfilled(value);
      onRejected(error);
      onFulfilled(value);
    },
  });
  return p;
}

describe('enterCall', () => {
  it('no options, null or an empty object: the shared root context', () => {
    expect(enterCall(undefined)).toBe(ROOT_CONTEXT);
    expect(enterCall(null)).toBe(ROOT_CONTEXT);
    expect(enterCall({})).toBe(ROOT_CONTEXT);
  });

  it('a layer’s context is passed on as it is; a caller’s signal gets a context of its own', () => {
    const signal = new AbortController().signal;
    const ctx = { signal, attempt: 3 };
    expect(enterCall(ctx)).toBe(ctx);
    expect(enterCall({ signal })).toEqual({ signal, attempt: 1 });
  });

  it('bad options are a rejected promise, never a sync throw', async () => {
    const fake = enterCall({ signal: { aborted: false } as AbortSignal, attempt: 1 } as never);
    await expect(fake).rejects.toThrow(new TypeError('execute: options.signal must be an AbortSignal, got an object'));
    await expect(enterCall(5 as never)).rejects.toThrow(new TypeError('execute: options must be an object ({ signal }), got 5'));
  });

  it('an already aborted signal rejects with its reason', async () => {
    await expect(enterCall({ signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
  });
});

describe('follow and invoke', () => {
  it('a plain native promise is returned as it is', () => {
    const p = Promise.resolve(1);
    expect(follow(p)).toBe(p);
  });

  it('a promise whose then calls both handlers settles once, with the first', async () => {
    const onFulfilled = vi.fn();
    const onRejected = vi.fn();
    await follow(bothHandlers(7, new Error('second'))).then(onFulfilled, onRejected);
    expect(onFulfilled).toHaveBeenCalledTimes(1);
    expect(onFulfilled).toHaveBeenCalledWith(7);
    expect(onRejected).not.toHaveBeenCalled();
  });

  it('a thenable whose then getter throws is a rejection, not a sync throw', async () => {
    const hostile = {
      get then(): never {
        throw new Error('getter');
      },
    };
    let result: Promise<unknown> | undefined;
    expect(() => (result = follow(hostile))).not.toThrow();
    await expect(result).rejects.toThrow('getter');
  });

  it('a native promise with a then getter of its own that throws is a rejection, not a sync throw', async () => {
    const p = Promise.resolve(1);
    Object.defineProperty(p, 'then', {
      get(): never {
        throw new Error('own getter');
      },
    });
    let result: Promise<unknown> | undefined;
    expect(() => (result = follow(p))).not.toThrow();
    await expect(result).rejects.toThrow('own getter');
  });

  it('a look-alike with no promise inside (Object.create(Promise.prototype)) is a rejection, not a sync throw', async () => {
    const fake = Object.create(Promise.prototype) as Promise<number>;
    let result: Promise<number> | undefined;
    expect(() => (result = follow(fake))).not.toThrow();
    expect(result).not.toBe(fake);
    await expect(result).rejects.toThrow(TypeError);
  });

  it('a subclass of Promise is adopted once into a plain promise with its value', async () => {
    class Tracked<T> extends Promise<T> {}
    const p = Tracked.resolve(1);
    const followed = follow(p);
    expect(Object.getPrototypeOf(followed)).toBe(Promise.prototype);
    await expect(followed).resolves.toBe(1);
  });

  it('invoke: a sync throw is a rejection, a plain value a resolution', async () => {
    await expect(
      invoke(() => {
        throw 'thrown';
      }, ROOT_CONTEXT),
    ).rejects.toBe('thrown');
    await expect(invoke(() => 5, ROOT_CONTEXT)).resolves.toBe(5);
  });
});

describe('raceAbort', () => {
  it('with NEVER_ABORTED is the promise itself', () => {
    const p = Promise.resolve(1);
    expect(raceAbort(p, NEVER_ABORTED)).toBe(p);
  });

  it('rejects at once when the signal aborts; the late outcome is swallowed; no listener is left', async () => {
    const controller = new AbortController();
    let fail!: (e: unknown) => void;
    const work = new Promise<number>((_, reject) => (fail = reject));
    const raced = raceAbort(work, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort('stop');
    await expect(raced).rejects.toBe('stop');
    fail(new Error('late'));
    await Promise.resolve();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('follows the promise and removes its listener when the promise settles first', async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(3), controller.signal)).resolves.toBe(3);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an already aborted signal rejects at once', async () => {
    await expect(raceAbort(Promise.reject(new Error('late')), AbortSignal.abort('now'))).rejects.toBe('now');
  });
});
