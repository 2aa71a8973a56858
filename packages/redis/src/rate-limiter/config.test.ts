import { VirtualClock } from '@breakwater/core';
import type { createClient, createCluster } from 'redis';
import { describe, expect, it } from 'vitest';
import { REDIS_RATE_LIMITER_OPTIONS, resolveRedisRateLimiterConfig, type RedisRateLimiterConfig } from './config.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import type { ScriptClient } from '../script-runner.js';

const client = { isReady: true, evalSha: () => Promise.resolve([]), eval: () => Promise.resolve([]) };
const make = (config: Record<string, unknown>) => () => new RedisRateLimiter('pg', { client, ...config } as RedisRateLimiterConfig);

describe('RedisRateLimiter config', () => {
  it('has defaults, resolved once (durations in ms)', () => {
    const clock = new VirtualClock();
    expect(resolveRedisRateLimiterConfig('pg', { client, clock })).toEqual({
      client,
      limitForPeriod: 50,
      limitRefreshPeriod: 500,
      timeoutDuration: 5000,
      commandTimeout: 250,
      onStoreError: 'local',
      localLimitForPeriod: 50,
      drainPermissionsOnResult: undefined,
      writableStackTraceEnabled: true,
      clock,
      time: 'redis',
    });
    expect(new RedisRateLimiter('pg', { client, limitForPeriod: 7, limitRefreshPeriod: '1s', commandTimeout: '100ms' }).config).toMatchObject({
      localLimitForPeriod: 7,
      limitRefreshPeriod: 1000,
      commandTimeout: 100,
    });
    expect(new RedisRateLimiter('pg', { client, limitForPeriod: 7 })).toMatchObject({ name: 'pg', kind: 'rateLimiter' });
  });

  it.each([
    [{ limitForPeriod: 0 }, RangeError, "RedisRateLimiter 'pg': limitForPeriod must be"],
    [{ limitForPeriod: 1.5 }, RangeError, 'limitForPeriod must be an integer'],
    [{ limitForPeriod: '5' }, TypeError, "limitForPeriod must be a number, got '5'"],
    [{ limitRefreshPeriod: 0 }, RangeError, 'limitRefreshPeriod must be > 0, got 0'],
    [{ limitRefreshPeriod: Infinity }, RangeError, 'limitRefreshPeriod must be a finite duration > 0'],
    [{ limitRefreshPeriod: '1 sec' }, TypeError, 'limitRefreshPeriod must be a duration'],
    [{ timeoutDuration: -1 }, RangeError, 'timeoutDuration must be >= 0, got -1'],
    [{ commandTimeout: 0 }, RangeError, 'commandTimeout must be > 0, got 0'],
    [{ commandTimeout: Infinity }, RangeError, 'commandTimeout must be a finite duration > 0'],
    [{ onStoreError: 'ignore' }, TypeError, "onStoreError must be one of 'local', 'fail-open', 'fail-closed', got 'ignore'"],
    [{ localLimitForPeriod: 0 }, RangeError, 'localLimitForPeriod must be'],
    [{ drainPermissionsOnResult: true }, TypeError, 'drainPermissionsOnResult must be a function'],
    [{ time: 5 }, TypeError, "time must be 'redis' or a function"],
    [{ clock: {} }, TypeError, 'clock must be a Clock'],
    [{ client: undefined }, TypeError, "RedisRateLimiter 'pg': client must be a node-redis client"],
    [{ client: { get: () => 1 } }, TypeError, 'client must be a node-redis client'],
    [{ limitForPerid: 5 }, TypeError, "unknown option 'limitForPerid' (did you mean 'limitForPeriod'?)"],
  ])('refuses %o at construction', (config, type, message) => {
    expect(make(config)).toThrow(type);
    expect(make(config)).toThrow(message);
  });

  it('takes a node-redis client or cluster as its client (checked by tsc)', () => {
    const fromClient = (c: ReturnType<typeof createClient>): ScriptClient => c;
    const fromCluster = (c: ReturnType<typeof createCluster>): ScriptClient => c;
    expect([typeof fromClient, typeof fromCluster]).toEqual(['function', 'function']);
  });

  it('refuses a missing config, a bad name, and bad values given at run time', () => {
    expect(() => new RedisRateLimiter('pg', undefined as unknown as RedisRateLimiterConfig)).toThrow("RedisRateLimiter 'pg': client must be");
    expect(() => new RedisRateLimiter('', { client })).toThrow('RedisRateLimiter: name must be a non-empty string');
    const rl = new RedisRateLimiter('pg', { client });
    expect(() => rl.changeLimitForPeriod(0)).toThrow("RedisRateLimiter 'pg': limitForPeriod must be an integer >= 1, got 0");
    expect(() => rl.changeTimeoutDuration(-5)).toThrow("RedisRateLimiter 'pg': timeoutDuration must be >= 0, got -5");
    expect(() => rl.changeTimeoutDuration(undefined as unknown as number)).toThrow(TypeError);
    expect(REDIS_RATE_LIMITER_OPTIONS).toContain('onStoreError');
  });
});
