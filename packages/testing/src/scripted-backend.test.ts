import { getEventListeners } from 'node:events';
import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { scriptedBackend, ScriptedError } from './scripted-backend.js';

describe('scriptedBackend', () => {
  it('follows the script on the clock, then repeats it', async () => {
    const clock = new VirtualClock();
    const backend = scriptedBackend('S100 E', { clock });
    const first = backend();
    expect(backend.inFlight).toBe(1);
    await clock.advance(99);
    let settled = false;
    void first.then(() => (settled = true));
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    await expect(first).resolves.toBe('ok #1');
    await expect(backend()).rejects.toBeInstanceOf(ScriptedError);
    const third = backend(); // the script starts again
    await clock.advance(100);
    await expect(third).resolves.toBe('ok #3');
    expect(backend.calls).toBe(3);
    expect(backend.inFlight).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('throws past the end when told to', async () => {
    const backend = scriptedBackend('S', { clock: new VirtualClock(), whenDone: 'throw' });
    await backend();
    await expect(backend()).rejects.toThrow('call 2 is past the end of the script (1 steps)');
  });

  it('hangs until the signal aborts, then rejects with its reason and leaves nothing behind', async () => {
    const clock = new VirtualClock();
    const backend = scriptedBackend('H S50', { clock });
    const controller = new AbortController();
    const hung = backend({ signal: controller.signal });
    const slow = backend({ signal: controller.signal });
    expect(backend.maxInFlight).toBe(2);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1); // one for both calls
    controller.abort(new Error('enough'));
    await expect(hung).rejects.toThrow('enough');
    await expect(slow).rejects.toThrow('enough');
    expect(backend.aborted).toBe(2);
    expect(backend.inFlight).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('uses the given values and errors', async () => {
    const backend = scriptedBackend('SE', { clock: new VirtualClock(), value: (n) => ({ n }), error: (n) => `fail ${n}` });
    await expect(backend()).resolves.toEqual({ n: 1 });
    await expect(backend()).rejects.toBe('fail 2');
  });

  it('refuses an empty script', () => {
    expect(() => scriptedBackend('')).toThrow('the script has no step');
  });
});
