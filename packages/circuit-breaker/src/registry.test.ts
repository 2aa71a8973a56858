import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import { CircuitBreakerRegistry } from './registry.js';

describe('CircuitBreakerRegistry', () => {
  it('creates a breaker once per name from the default config and hands back the same one', () => {
    const clock = new VirtualClock();
    const registry = new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 7, clock } });
    const added: string[] = [];
    registry.on('added', (e) => added.push(e.instance.name));
    const a = registry.get('pg');
    expect(a).toBeInstanceOf(CircuitBreaker);
    expect(a.config.slidingWindowSize).toBe(7);
    expect(registry.get('pg', { slidingWindowSize: 99 })).toBe(a); // existing instance as is
    expect(added).toEqual(['pg']);
  });

  it('builds from a named config laid over the default, and refuses an unknown name', () => {
    const registry = new CircuitBreakerRegistry({
      defaultConfig: { slidingWindowSize: 7, failureRateThreshold: 60 },
      configs: { slow: { slowCallDurationThreshold: '2s' } },
    });
    const b = registry.get('db', 'slow');
    expect(b.config).toMatchObject({ slidingWindowSize: 7, failureRateThreshold: 60, slowCallDurationThreshold: 2000 });
    expect(() => registry.get('x', 'missing')).toThrow(/no config named 'missing'/);
  });

  it('refuses a bad config for a new breaker with the breaker’s name', () => {
    const registry = new CircuitBreakerRegistry();
    expect(() => registry.get('tenant-42', { slidingWindowSize: 0 })).toThrow(
      "CircuitBreaker 'tenant-42': slidingWindowSize must be an integer in [1, 1000000], got 0",
    );
  });

  it('bounds per-tenant breakers with maxSize (least recently used goes)', () => {
    const registry = new CircuitBreakerRegistry({ maxSize: 2 });
    const removed: string[] = [];
    registry.on('removed', (e) => removed.push(`${e.instance.name}:${e.reason}`));
    registry.get('a');
    registry.get('b');
    registry.find('a');
    registry.get('c');
    expect(registry.all().map((b) => b.name)).toEqual(['a', 'c']);
    expect(removed).toEqual(['b:evicted']);
  });

  it('checks defaultConfig and every named config at construction, not at the first get', () => {
    expect(() => new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 0 } })).toThrow(RangeError);
    expect(() => new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 0 } })).toThrow("config 'default'");
    expect(() => new CircuitBreakerRegistry({ configs: { night: { failureRateTreshold: 50 } as never } })).toThrow(TypeError);
    expect(() => new CircuitBreakerRegistry({ configs: { night: { failureRateTreshold: 50 } as never } })).toThrow(
      /config 'night'.*did you mean 'failureRateThreshold'/,
    );
    expect(() => new CircuitBreakerRegistry({ configs: { big: { permittedNumberOfCallsInHalfOpenState: 2 ** 40 } } })).toThrow(RangeError);
  });
});
