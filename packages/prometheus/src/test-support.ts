import { VirtualClock } from '@breakwater/core';
import { Registry } from 'prom-client';
import { expect } from 'vitest';
import { PrometheusMetrics, type PrometheusMetricsOptions } from './index.js';

const clocks: VirtualClock[] = [];

/** A fresh VirtualClock, checked for pending timers by {@link expectNoLeakedTimers}. */
export function newClock(): VirtualClock {
  const clock = new VirtualClock();
  clocks.push(clock);
  return clock;
}

/** Every clock of the test ends with no pending timer. */
export function expectNoLeakedTimers(): void {
  const leaks = clocks.map((c) => c.pendingTimers);
  clocks.length = 0;
  expect(leaks.filter((n) => n > 0)).toEqual([]);
}

/** A real prom-client registry with an exporter on it. */
export function exporter(options: Omit<PrometheusMetricsOptions, 'registry'> = {}) {
  const registry = new Registry();
  const metrics = new PrometheusMetrics({ registry, ...options });
  /** The sample lines of the scrape whose series name is one of `names` (all of them without `names`). */
  const scrape = async (...names: string[]): Promise<string[]> => {
    const text = await registry.metrics();
    return text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .filter((line) => names.length === 0 || names.includes(line.replace(/[{ ].*$/, '')));
  };
  return { registry, metrics, scrape };
}

/** The distinct series names of a scrape's sample lines. */
export const seriesNames = (lines: readonly string[]): string[] => [...new Set(lines.map((l) => l.replace(/[{ ].*$/, '')))].sort();
