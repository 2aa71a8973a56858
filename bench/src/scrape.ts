import { GCProfiler, getHeapStatistics } from 'node:v8';
import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { PrometheusMetrics } from '@breakwater/prometheus';
import { Registry } from 'prom-client';
import { median } from './harness.js';
import type { ScrapeResult } from './results.js';
import { work } from './work.js';

/**
 * What one `await registry.metrics()` allocates and how long it takes: the heap in use after it
 * minus before it, plus everything the collections during it freed (node:v8's GCProfiler reports
 * each collection's heap before and after), so a collection in the middle does not hide anything.
 */
async function oneScrape(
  registry: Registry,
  scrape: () => Promise<string | object[]> = () => registry.metrics(),
): Promise<{ ms: number; bytes: number; text: number }> {
  // Start from a collected heap: the collections during the scrape then free only its own garbage.
  (globalThis as { gc?: () => void }).gc?.();
  const profiler = new GCProfiler();
  profiler.start();
  const before = getHeapStatistics().used_heap_size;
  const t0 = performance.now();
  const text = await scrape();
  const ms = performance.now() - t0;
  const after = getHeapStatistics().used_heap_size;
  const stats = profiler.stop();
  let freed = 0;
  for (const gc of stats?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  return { ms, bytes: after - before + freed, text: text.length };
}

/**
 * Row 10: a scrape of `breakers` breakers (default configuration, one successful call each) in one
 * CircuitBreakerRegistry bound to PrometheusMetrics: the median of `runs` scrapes after one
 * untimed scrape (time, bytes allocated, bytes of text).
 */
export async function measureScrape(breakers = 10_000, runs = 3): Promise<ScrapeResult> {
  const breakerRegistry = new CircuitBreakerRegistry();
  const registry = new Registry();
  new PrometheusMetrics({ registry }).add(breakerRegistry);
  for (let i = 0; i < breakers; i++) await breakerRegistry.get(`tenant-${i}`).execute(work);
  const first = await registry.metrics();
  const expected = `breakwater_circuitbreaker_state{name="tenant-${breakers - 1}",state="closed"} 1`;
  if (!first.includes(expected)) throw new Error(`row 10: the scrape does not show ${expected}`);
  const samples = [];
  const collects = [];
  for (let i = 0; i < runs; i++) {
    samples.push(await oneScrape(registry));
    // The same values without the text: prom-client's collect and get() (the exporter's reading
    // of every breaker, prom-client's label sets), not its formatting.
    collects.push(await oneScrape(registry, () => registry.getMetricsAsJSON()));
  }
  const label = breakers.toLocaleString('en-US').replaceAll(',', ' ');
  return {
    id: '10',
    name: `one scrape of ${label} CircuitBreakers in a CircuitBreakerRegistry bound to PrometheusMetrics (prom-client ${registry.contentType.includes('openmetrics') ? 'OpenMetrics' : 'text 0.0.4'})`,
    breakers,
    ms: median(samples.map((s) => s.ms)),
    allocatedBytes: median(samples.map((s) => s.bytes)),
    textBytes: median(samples.map((s) => s.text)),
    collectMs: median(collects.map((s) => s.ms)),
    collectBytes: median(collects.map((s) => s.bytes)),
    series: first.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length,
  };
}
