import type { CallContext } from '@breakwater/core';
import { ROOT_CONTEXT } from '@breakwater/core/internal';
import { describe, expect, it, vi } from 'vitest';
import { compose, NO_ARGS, runChain, terminal, type Chain, type LayerStep } from './chain.js';

describe('compose', () => {
  it('folds the steps once, outermost first, and the chain runs any number of times without folding again', async () => {
    const log: string[] = [];
    const factories = ['a', 'b', 'c'].map((name) =>
      vi.fn<LayerStep>(
        (next: Chain): Chain =>
          (fn, ctx, args) => {
            log.push(name);
            return next(fn, ctx, args);
          },
      ),
    );
    const chain = compose(factories);
    expect(factories.map((f) => f.mock.calls.length)).toEqual([1, 1, 1]);
    // the innermost step is built around the terminal, each outer one around the step inside it
    expect(factories[2]!.mock.calls[0]![0]).toBe(terminal);
    for (let i = 0; i < 3; i++) await chain(() => log.push('fn'), ROOT_CONTEXT, NO_ARGS);
    expect(factories.map((f) => f.mock.calls.length)).toEqual([1, 1, 1]);
    expect(log).toEqual(['a', 'b', 'c', 'fn', 'a', 'b', 'c', 'fn', 'a', 'b', 'c', 'fn']);
  });

  it('with no step is the terminal itself', () => {
    expect(compose([])).toBe(terminal);
  });
});

describe('terminal', () => {
  it('returns the promise fn returns, as it is', () => {
    const p = Promise.resolve(1);
    expect(terminal(() => p, ROOT_CONTEXT, NO_ARGS)).toBe(p);
  });

  it('turns a value into a resolved promise and a sync throw into a rejection', async () => {
    let seen: CallContext | undefined;
    await expect(terminal((ctx) => ((seen = ctx), 3), ROOT_CONTEXT, NO_ARGS)).resolves.toBe(3);
    expect(seen).toBe(ROOT_CONTEXT);
    const boom = new Error('x');
    await expect(
      terminal(
        () => {
          throw boom;
        },
        ROOT_CONTEXT,
        NO_ARGS,
      ),
    ).rejects.toBe(boom);
  });
});

describe('runChain', () => {
  it("turns a layer's sync throw into a rejection and adopts a thenable once", async () => {
    const boom = new Error('layer threw');
    const throwing: Chain = () => {
      throw boom;
    };
    await expect(runChain(throwing, () => 1, ROOT_CONTEXT, NO_ARGS)).rejects.toBe(boom);
    const thenable = { then: (ok: (v: unknown) => void) => ok('adopted') } as unknown as Promise<unknown>;
    const outcome = runChain(
      () => thenable,
      () => 1,
      ROOT_CONTEXT,
      NO_ARGS,
    );
    expect(outcome).toBeInstanceOf(Promise);
    await expect(outcome).resolves.toBe('adopted');
    await expect(runChain(terminal, (ctx) => ctx.attempt, ROOT_CONTEXT, NO_ARGS)).resolves.toBe(1);
  });
});
