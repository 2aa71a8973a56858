import { describe, expect, it } from 'vitest';
import { invoke } from './call.js';
import { isArgsAwareLayer, type ArgsAwareLayer, type InnerLayers } from './layer.js';
import { ROOT_CONTEXT, type Policy } from './policy.js';

describe('isArgsAwareLayer', () => {
  it('is true for an object with a runLayer method, false for a plain Policy', async () => {
    const plain: Policy = { name: 'p', kind: 'p', execute: (fn) => invoke(fn, ROOT_CONTEXT) };
    const aware: Policy & ArgsAwareLayer = {
      ...plain,
      runLayer: (inner: InnerLayers, fn, ctx, args) => inner(fn, ctx, args),
    };
    expect(isArgsAwareLayer(plain)).toBe(false);
    expect(isArgsAwareLayer(aware)).toBe(true);
    expect(isArgsAwareLayer({ ...plain, runLayer: 'no' })).toBe(false);
    const seen: unknown[] = [];
    const inner: InnerLayers = (fn, ctx, args) => (seen.push(args), invoke(fn, ctx));
    await expect(aware.runLayer(inner, () => 7, ROOT_CONTEXT, ['a'])).resolves.toBe(7);
    expect(seen).toEqual([['a']]);
  });
});
