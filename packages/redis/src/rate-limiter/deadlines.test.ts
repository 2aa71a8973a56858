import { describe, expect, it } from 'vitest';
import { CommandTimeoutError, Deadlines } from './deadlines.js';

// Real time, bounded (tens of ms): the timer is a real one, as commandTimeout is.
describe('Deadlines', () => {
  it('passes outcomes through, and ends each round trip that takes too long, oldest first, with one timer', async () => {
    const deadlines = new Deadlines(40);
    const never = new Promise<never>(() => {});
    await expect(deadlines.bound(Promise.resolve('ok'))).resolves.toBe('ok');
    await expect(deadlines.bound(Promise.reject(new Error('reply error')))).rejects.toThrow('reply error');
    const t0 = performance.now();
    const first = deadlines.bound(never).catch((e: unknown) => [e, performance.now() - t0] as const);
    await new Promise((r) => setTimeout(r, 20));
    const second = deadlines.bound(never).catch((e: unknown) => [e, performance.now() - t0] as const);
    const [[e1, ms1], [e2, ms2]] = await Promise.all([first, second]);
    expect(e1).toBeInstanceOf(CommandTimeoutError);
    expect(e2).toMatchObject({ name: 'CommandTimeoutError', timeoutMs: 40 });
    expect(ms1).toBeGreaterThanOrEqual(39);
    expect(ms2).toBeGreaterThanOrEqual(59);
  });
});
