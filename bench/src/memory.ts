import { CircuitBreaker, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { MemoryResult } from './results.js';
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
 * What `make()`'s result retains: the bytes in use after full collections while it is alive,
 * minus the bytes in use right after it is dropped (nothing else runs in between, so nothing
 * else is counted — code compiled meanwhile, caches, the calls' own garbage).
 */
async function retained(gc: () => void, make: () => Promise<object>): Promise<number> {
  const holder: Holder = { value: null };
  await fill(holder, make); // in its own frame: no register of this one holds the value
  // Let the compiler threads finish what the calls started (installing code changes the heap).
  await new Promise((resolve) => setTimeout(resolve, 20));
  return dropped(gc, holder);
}

/** The median of three {@link retained} measurements of fresh objects. */
async function retainedMedian(gc: () => void, make: () => Promise<object>): Promise<number> {
  const figures = [await retained(gc, make), await retained(gc, make), await retained(gc, make)];
  return figures.sort((a, b) => a - b)[1]!;
}

interface Holder {
  value: object | null;
}

async function fill(holder: Holder, make: () => Promise<object>): Promise<void> {
  holder.value = await make();
}

function dropped(gc: () => void, holder: Holder): number {
  const alive = used(gc);
  holder.value = null;
  return alive - used(gc);
}

/**
 * Row 9: what a breaker retains after `calls` calls (1 M in the full run), and after 1 000 for
 * comparison; what a registry of 10 000 default breakers retains.
 */
export async function measureMemory(callsPerBreaker: number): Promise<MemoryResult[]> {
  const gc = collector();
  const results: MemoryResult[] = [];
  // Breakers of both kinds and a registry stay alive (and warm) throughout: dropping the last
  // object of a kind could free compiled code that refers to it, which is not the object's size.
  const keep = [new CircuitBreaker('warm', COUNT), new CircuitBreaker('warm', TIME)];
  for (const b of keep) await calls(b, 50_000);
  const keepRegistry = new CircuitBreakerRegistry();
  keepRegistry.get('warm');
  const million = callsPerBreaker.toLocaleString('en-US').replaceAll(',', ' ');
  for (const [id, label, config] of [
    ['count', 'COUNT_BASED(100)', COUNT],
    ['time', 'TIME_BASED(60 s)', TIME],
  ] as const) {
    for (const [suffix, n, text] of [
      ['1k', 1_000, '1 000'],
      ['all', callsPerBreaker, million],
    ] as const) {
      const bytes = await retainedMedian(gc, async () => {
        const breaker = new CircuitBreaker('bench', config);
        await calls(breaker, n);
        if (breaker.metrics.numberOfBufferedCalls === 0) throw new Error('row 9: nothing recorded');
        return breaker;
      });
      results.push({ id: `${id}-${suffix}`, name: `one CircuitBreaker ${label} after ${text} calls`, bytes });
    }
  }
  const registryBytes = await retainedMedian(gc, async () => {
    const registry = new CircuitBreakerRegistry();
    for (let i = 0; i < 10_000; i++) registry.get(`tenant-${i}`);
    if (registry.all().length !== 10_000) throw new Error('row 9: registry does not hold 10 000 breakers');
    return registry;
  });
  if (keep.length !== 2 || keepRegistry.size !== 1) throw new Error('row 9: the warm objects are gone');
  results.push({ id: 'registry', name: '10 000 CircuitBreakers (defaults: COUNT_BASED(100)) in a CircuitBreakerRegistry', bytes: registryBytes });
  return results;
}
