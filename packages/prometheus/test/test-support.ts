import { Registry } from 'prom-client';
import { PrometheusMetrics, type PrometheusMetricsOptions } from '../src/index.js';

// The clock bookkeeping is the scenarios' own (one list of clocks for the scenarios and the tests).
export { expectNoLeakedTimers, newClock } from '@breakwater/exporter-scenarios';

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
