import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

/** Whether `text` survives UTF-8 (what OTLP and every exporter carry): a lone surrogate would become U+FFFD. */
const isValidUtf8 = (text: string): boolean => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'utf8')) === text;

describe('attribute values (contract: docs/observability.md): two different names never become one series', () => {
  it("lone surrogates are escaped distinctly ('a\\ud800' and 'a\\udbff' are two points) in every instrument, as in @breakwater/prometheus", async () => {
    const breakers = new CircuitBreakerRegistry({ defaultConfig: { clock: newClock() } });
    const given = ['a\ud800', 'a\udbff', 'a\\uD800', 'pg'];
    const { metrics, collectAll } = exporter();
    metrics.add(breakers);
    for (const name of given) breakers.get(name).onSuccess(1);

    const collected = await collectAll();
    const expected = ['a\\uD800', 'a\\uDBFF', 'a\\\\uD800', 'pg'];
    for (const instrument of ['breakwater.circuitbreaker.failure_rate', 'breakwater.circuitbreaker.state', 'breakwater.circuitbreaker.calls']) {
      const points = collected.find((m) => m.descriptor.name === instrument)!.dataPoints as readonly { attributes: Record<string, unknown> }[];
      const names = [...new Set(points.map((p) => p.attributes['name'] as string))];
      expect(names.sort(), instrument).toEqual([...expected].sort());
      expect(names.every(isValidUtf8), instrument).toBe(true);
    }
  });
});
