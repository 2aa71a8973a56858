import { VirtualClock } from '@breakwater/core';
import { flush, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingAlgorithm } from '../test/test-support.js';
import { AdaptiveLimiter, AdaptiveThrottle } from './index.js';

// Hostile input: a call settles and is counted exactly once, never throws synchronously
// (contract: docs/conventions.md).

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const thenThrows = {
  then: () => {
    throw new Error('hostile then');
  },
};

describe('AdaptiveLimiter — hostile input', () => {
  it('a promise whose then calls both handlers gives its slot back once and feeds one sample', async () => {
    const algorithm = new RecordingAlgorithm(2);
    const l = new AdaptiveLimiter('pg', { clock, algorithm, window: false });
    await expect(l.execute(() => twoFaced('ok'))).resolves.toBe('ok');
    expect(l.inFlight).toBe(0);
    expect(algorithm.samples).toHaveLength(1);
    expect(algorithm.samples[0]!.didDrop).toBe(false);
  });

  it('a thenable whose then throws is a rejection; the slot comes back', async () => {
    const l = new AdaptiveLimiter('pg', { clock, algorithm: new RecordingAlgorithm(1), window: false });
    await expect(l.execute(() => thenThrows as unknown as Promise<never>)).rejects.toThrow('hostile then');
    expect(l.inFlight).toBe(0);
    await expect(l.execute(() => 'next')).resolves.toBe('next');
  });

  it('a context passed down by an outer layer is used as it is (its signal, its attempt)', async () => {
    const l = new AdaptiveLimiter('pg', { clock, algorithm: new RecordingAlgorithm(1), window: false });
    const ac = new AbortController();
    const ctx = { signal: ac.signal, attempt: 3 };
    await expect(l.execute((c) => c, ctx)).resolves.toBe(ctx);
    await expect(l.execute(() => 1, null)).resolves.toBe(1);
  });
});

describe('AdaptiveThrottle — hostile input', () => {
  it('a promise whose then calls both handlers is counted once, as an accept', async () => {
    const t = new AdaptiveThrottle('t', { clock, random: () => 0.5 });
    await expect(t.execute(() => twoFaced('ok'))).resolves.toBe('ok');
    await flush();
    expect(t.metrics).toEqual({ requests: 1, accepts: 1, rejected: 0, rejectRatio: 0 });
  });

  it('a thenable whose then throws is a rejection, counted once as a drop', async () => {
    const t = new AdaptiveThrottle('t', { clock, random: () => 0.999 });
    await expect(t.execute(() => thenThrows as unknown as Promise<never>)).rejects.toThrow('hostile then');
    expect(t.metrics).toEqual({ requests: 1, accepts: 0, rejected: 0, rejectRatio: 1 / 2 });
  });
});
