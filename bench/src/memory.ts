import { CircuitBreaker, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { MemoryResult } from './report.js';
import { work } from './work.js';

/** `globalThis.gc`, which `node --expose-gc` provides. */
function collector(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') throw new Error('row 9 needs node --expose-gc (pnpm bench runs it so)');
  return gc;
}

/** Bytes in use after full collections: the JS heap plus array buffers (a typed array's bytes can live outside the heap). */
function used(gc: () => void): number {
  for (let i = 0; i < 4; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

async function calls(breaker: CircuitBreaker, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await breaker.execute(work);
}

const COUNT = { slidingWindowType: 'COUNT_BASED', slidingWindowSize: 100, minimumNumberOfCalls: 100 } as const;
const TIME = { slidingWindowType: 'TIME_BASED', slidingWindowSize: 60, minimumNumberOfCalls: 100 } as const;

/**
 * Row 9: what a breaker retains. Each figure is the heap after full collections with the thing
 * alive minus the heap before it was made; the code paths run once beforehand on a throwaway
 * breaker, so compiled code does not count. `callsPerBreaker` is 1 M in the full run.
 */
export async function measureMemory(callsPerBreaker: number): Promise<MemoryResult[]> {
  const gc = collector();
  const results: MemoryResult[] = [];
  // Warm every path measured below, so what is compiled now is not counted later.
  for (const config of [COUNT, TIME]) await calls(new CircuitBreaker('warm', config), 20_000);
  new CircuitBreakerRegistry().get('warm');

  const million = callsPerBreaker.toLocaleString('en-US').replaceAll(',', ' ');
  for (const [id, label, config] of [
    ['count', 'COUNT_BASED(100)', COUNT],
    ['time', 'TIME_BASED(60 s)', TIME],
  ] as const) {
    const before = used(gc);
    const breaker = new CircuitBreaker('bench', config);
    await calls(breaker, 1_000);
    const after1k = used(gc) - before;
    await calls(breaker, callsPerBreaker - 1_000);
    const afterAll = used(gc) - before;
    if (breaker.metrics.numberOfBufferedCalls === 0) throw new Error('row 9: nothing recorded');
    results.push({ id: `${id}-1k`, name: `one CircuitBreaker ${label} after 1 000 calls`, bytes: after1k });
    results.push({ id: `${id}-all`, name: `one CircuitBreaker ${label} after ${million} calls`, bytes: afterAll });
  }

  const before = used(gc);
  const registry = new CircuitBreakerRegistry();
  for (let i = 0; i < 10_000; i++) registry.get(`tenant-${i}`);
  const registryBytes = used(gc) - before;
  if (registry.all().length !== 10_000) throw new Error('row 9: registry does not hold 10 000 breakers');
  results.push({ id: 'registry', name: '10 000 CircuitBreakers (defaults: COUNT_BASED(100)) in a CircuitBreakerRegistry', bytes: registryBytes });
  return results;
}
