import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { systemClock } from './clock.js';
import { holdProcess, keepsProcessAlive, releaseProcess } from './keep-alive.js';
import { VirtualClock } from './virtual-clock.js';

describe('holdProcess / releaseProcess', () => {
  it('one shared handle while holds on Node-like timers are pending (any number of them), none once they have ended', async () => {
    await nextTurn();
    const timers = Array.from({ length: 10 }, () => systemClock.setTimeout(() => {}, 60_000));
    expect(timers.map((timer) => holdProcess(timer))).toEqual(Array(10).fill(true));
    // The timers themselves stay unref'd: only the shared handle is ref'd.
    expect(timers.every((timer) => !(timer as ReturnType<typeof setTimeout>).hasRef())).toBe(true);
    expect(keepsProcessAlive()).toBe(true);
    for (const timer of timers.slice(0, 5)) {
      systemClock.clearTimeout(timer);
      releaseProcess();
    }
    await nextTurn();
    expect(keepsProcessAlive()).toBe(true);
    for (const timer of timers.slice(5)) {
      systemClock.clearTimeout(timer);
      releaseProcess();
    }
    // The handle goes at the end of the loop turn, not at once (a steady stream never recreates it).
    expect(keepsProcessAlive()).toBe(true);
    await nextTurn();
    expect(keepsProcessAlive()).toBe(false);
  });

  it('a hold released and taken again in the same turn keeps the one handle', async () => {
    await nextTurn();
    const first = systemClock.setTimeout(() => {}, 1000);
    holdProcess(first);
    systemClock.clearTimeout(first);
    releaseProcess();
    const second = systemClock.setTimeout(() => {}, 1000);
    holdProcess(second);
    await nextTurn();
    expect(keepsProcessAlive()).toBe(true);
    systemClock.clearTimeout(second);
    releaseProcess();
    await nextTurn();
    expect(keepsProcessAlive()).toBe(false);
  });

  it('holds nothing for a timer without ref (a VirtualClock one)', async () => {
    await nextTurn();
    const clock = new VirtualClock();
    const timer = clock.setTimeout(() => {}, 10);
    expect(holdProcess(timer)).toBe(false);
    expect(keepsProcessAlive()).toBe(false);
    clock.clearTimeout(timer);
    expect(clock.pendingTimers).toBe(0);
  });
});
