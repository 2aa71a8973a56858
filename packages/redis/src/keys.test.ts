import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { componentKey, hashTag, hexName, keySlot, rateLimiterKey } from './keys.js';

describe('key naming', () => {
  it('computes the Redis Cluster slot as CLUSTER KEYSLOT does', () => {
    // Vectors of the Redis Cluster specification and of redis-cli's CLUSTER KEYSLOT.
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('somekey')).toBe(11058);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(hashTag('foo{}{bar}')).toBe('foo{}{bar}');
    expect(hashTag('foo{{bar}}zap')).toBe('{bar');
    expect(hashTag('foo{bar}{zap}')).toBe('bar');
  });

  it('names a limiter breakwater:rl:{hex of its UTF-8 name}', () => {
    expect(rateLimiterKey('pg')).toBe('breakwater:rl:{7067}');
    expect(componentKey('cb', 'pg', 'state')).toBe('breakwater:cb:{7067}:state');
    expect(hexName('é')).toBe('c3a9');
    expect(() => componentKey('Bad Kind', 'pg')).toThrow(TypeError);
  });

  it('keeps names with braces, spaces, colons and unicode in one slot: the tag is the hex of the name', () => {
    for (const name of ['a}b{c', '{pg}', 'pay ments', 'tenant:42:pg', 'zahlungen-ü-💳', '}', '{}', '\u0000']) {
      const key = rateLimiterKey(name);
      expect(hashTag(key)).toBe(hexName(name));
      expect(hashTag(key)).toMatch(/^[0-9a-f]+$/);
      expect(keySlot(key)).toBe(keySlot(hexName(name)));
      expect(keySlot(componentKey('rl', name, 'other'))).toBe(keySlot(key));
    }
    expect(() => rateLimiterKey('')).toThrow(TypeError);
    // Lone surrogates (not UTF-8-encodable) stay distinct.
    expect(rateLimiterKey('\ud800')).not.toBe(rateLimiterKey('\udc00'));
    expect(hashTag(rateLimiterKey('\ud800'))).toBe('u00d8');
  });

  it('never gives two names the same key, and the key always has one tag of hex digits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 }), (a, b) => {
        fc.pre(a !== b);
        expect(rateLimiterKey(a)).not.toBe(rateLimiterKey(b));
        const key = rateLimiterKey(a);
        expect(key).toMatch(/^breakwater:rl:\{u?[0-9a-f]+\}$/);
      }),
    );
  });
});
