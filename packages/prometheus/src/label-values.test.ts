import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

/** Whether `text` survives UTF-8 (what an HTTP response carries): a lone surrogate would become U+FFFD. */
const isValidUtf8 = (text: string): boolean => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'utf8')) === text;

/** The `name` label value of each sample line, as Prometheus reads it (`\\`, `\"`, `\n` unescaped). */
const names = (lines: readonly string[]): string[] =>
  lines.map((line) => /\{name="((?:[^"\\]|\\.)*)"/.exec(line)![1]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)));

describe('label values (contract: docs/observability.md): two different names never become one series', () => {
  it("lone surrogates are escaped distinctly ('a\\ud800' and 'a\\udbff' are two series), and the exposition is valid UTF-8", async () => {
    const given = [
      'a\ud800', // a lone high surrogate
      'a\udbff', // another: both would be U+FFFD once encoded
      'a\udc00', // a lone low surrogate
      'a\\uD800', // the text of the escape itself: escaped too, so it cannot collide
      '\\\ud800', // a backslash, then a lone surrogate
      'a\ud83d\ude00', // a valid pair (an emoji): exactly as given
      'pg',
      'x\\y', // a backslash not followed by u: exactly as given
      'C:\\users', // the text \u: backslashes doubled
      'say "hi"\n',
    ];
    const breakers = new CircuitBreakerRegistry({ defaultConfig: { clock: newClock() } });
    for (const name of given) breakers.get(name).onSuccess(1);
    const { registry, metrics, scrape } = exporter();
    metrics.add(breakers);

    const text = await registry.metrics();
    expect(isValidUtf8(text)).toBe(true);
    const rates = await scrape('breakwater_circuitbreaker_failure_rate');
    expect(names(rates)).toEqual(['a\\uD800', 'a\\uDBFF', 'a\\uDC00', 'a\\\\uD800', '\\\\\\uD800', 'a\ud83d\ude00', 'pg', 'x\\y', 'C:\\\\users', 'say "hi"\n']);
    // As written on the wire (prom-client escapes the backslash): one line each, all distinct.
    expect(rates.slice(0, 5)).toEqual([
      'breakwater_circuitbreaker_failure_rate{name="a\\\\uD800"} -1',
      'breakwater_circuitbreaker_failure_rate{name="a\\\\uDBFF"} -1',
      'breakwater_circuitbreaker_failure_rate{name="a\\\\uDC00"} -1',
      'breakwater_circuitbreaker_failure_rate{name="a\\\\\\\\uD800"} -1',
      'breakwater_circuitbreaker_failure_rate{name="\\\\\\\\\\\\uD800"} -1',
    ]);
    // Every series of a breaker (the state, the call histogram…) carries the same distinct names.
    for (const series of ['breakwater_circuitbreaker_state', 'breakwater_circuitbreaker_calls_seconds_count', 'breakwater_circuitbreaker_calls_seconds_max']) {
      const lines = await scrape(series);
      expect(new Set(names(lines)).size, series).toBe(given.length);
    }
  });
});
