import { request } from 'node:http';
import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { parseDemoArgs, UsageError } from './demo.js';
import { serve } from './serve.js';

/** One GET over real HTTP (a fresh connection, closed after: nothing kept alive). */
function get(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`GET ${url}: no answer in 5 s`)));
    req.end();
  });
}

/** The value of one sample line of a Prometheus text scrape (undefined when absent). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Moves the experiment's clock on, 100 ms at a time, until `condition` holds (at most `ms` of its time). */
async function until(clock: VirtualClock, condition: () => boolean, ms: number): Promise<void> {
  const deadline = clock.now() + ms;
  while (!condition()) {
    if (clock.now() >= deadline) throw new Error(`not true within ${ms} ms of the clock`);
    await clock.advance(100);
  }
}

describe('pnpm demo --serve', () => {
  it('reads --serve, --serve PORT and --seed with it; refuses a bad port and another demo', () => {
    expect(parseDemoArgs(['--serve'])).toEqual({ kind: 'serve', seed: 42, port: 0 });
    expect(parseDemoArgs(['--serve', '9464', '--seed', '7'])).toEqual({ kind: 'serve', seed: 7, port: 9464 });
    expect(parseDemoArgs(['--', '--serve', '0'])).toEqual({ kind: 'serve', seed: 42, port: 0 });
    for (const bad of [['--serve', 'x'], ['--serve', '70000'], ['--serve', '1', '2'], ['--serve', '--story'], ['--real-time', '--serve'], ['8080']]) {
      expect(() => parseDemoArgs(bad), bad.join(' ')).toThrow(UsageError);
    }
  });

  it('serves /metrics and /health over HTTP while the payments run, then closes cleanly', async () => {
    const lines: string[] = [];
    // The payments run on a VirtualClock; the HTTP server and its scrapes are real.
    const clock = new VirtualClock();
    const served = await serve({ seed: 42, out: (t) => lines.push(t), clock });
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // With seed 42 the breaker stays CLOSED for its first 20 calls (about 13 payments, ~10 s):
      // scrape after a few payments, well before it can open.
      await until(clock, () => served.payments() >= 3, 15_000);

      const metrics = await get(`${served.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.type).toContain('text/plain');
      expect(metrics.type).toContain('version=0.0.4');
      const text = metrics.body;
      expect(sample(text, 'breakwater_circuitbreaker_state{name="pg",state="closed"}')).toBe(1);
      expect(sample(text, 'breakwater_circuitbreaker_state{name="pg",state="open"}')).toBe(0);
      const calls =
        (sample(text, 'breakwater_circuitbreaker_calls_seconds_count{name="pg",kind="successful"}') ?? 0) +
        (sample(text, 'breakwater_circuitbreaker_calls_seconds_count{name="pg",kind="failed"}') ?? 0);
      expect(calls).toBeGreaterThanOrEqual(3);
      expect(text).toMatch(/^breakwater_circuitbreaker_buffered_calls\{name="pg",kind="failed"\} \d+$/m);
      expect(text).toMatch(/^breakwater_circuitbreaker_failure_rate\{name="pg"\} -?[\d.]+$/m);
      expect(text).toMatch(/^breakwater_retry_calls_total\{name="pg",kind="successful_without_retry"\} \d+$/m);
      expect(text).toMatch(/^breakwater_timelimiter_calls_total\{name="pg",kind="successful"\} \d+$/m);

      const h = await get(`${served.url}/health`);
      expect(h.status).toBe(200);
      expect(h.type).toBe('application/json');
      const snapshot = JSON.parse(h.body) as {
        status: string;
        components: Record<string, Record<string, Record<string, unknown>>>;
      };
      expect(snapshot.status).toBe('UP');
      expect(Object.keys(snapshot.components).sort()).toEqual(
        ['circuitBreakers', 'bulkheads', 'threadPoolBulkheads', 'rateLimiters', 'retries', 'timeLimiters', 'others'].sort(),
      );
      expect(snapshot.components['circuitBreakers']!['pg']).toMatchObject({
        status: 'UP',
        state: 'CLOSED',
        failureRateThreshold: 60,
        slowCallRateThreshold: 50,
      });
      expect(snapshot.components['circuitBreakers']!['pg']!['bufferedCalls']).toBeGreaterThanOrEqual(3);
      expect(Object.keys(snapshot.components['retries']!)).toEqual(['pg']);
      expect(Object.keys(snapshot.components['timeLimiters']!)).toEqual(['pg']);

      expect((await get(`${served.url}/nothing`)).status).toBe(404);

      // Opened by hand: the next scrape shows it, with the transition's cause; /health is DEGRADED
      // and still 200 (the open breaker is shown as CIRCUIT_OPEN): a readiness probe keeps the instance.
      served.breaker.transitionToForcedOpenState();
      const opened = (await get(`${served.url}/metrics`)).body;
      expect(sample(opened, 'breakwater_circuitbreaker_state{name="pg",state="forced_open"}')).toBe(1);
      expect(sample(opened, 'breakwater_circuitbreaker_state{name="pg",state="closed"}')).toBe(0);
      expect(sample(opened, 'breakwater_circuitbreaker_transitions_total{name="pg",from="closed",to="forced_open",cause="manual"}')).toBe(1);
      const degraded = await get(`${served.url}/health`);
      expect(degraded.status).toBe(200);
      expect(JSON.parse(degraded.body)).toMatchObject({
        status: 'DEGRADED',
        components: { circuitBreakers: { pg: { status: 'CIRCUIT_OPEN', state: 'FORCED_OPEN' } } },
      });
    } finally {
      const started = clock.now();
      await served.close();
      // The payment in flight is aborted, not awaited to its end: no time passed, no timer is left.
      expect(clock.now()).toBe(started);
      expect(clock.pendingTimers).toBe(0);
    }
    // Closed: nothing listens any more, and no handle of ours keeps the process alive.
    await expect(get(`${served.url}/metrics`)).rejects.toThrow(/ECONNREFUSED/);
    const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
    expect(handles.filter((h) => h?.constructor?.name === 'Server')).toEqual([]);
    const before = served.payments();
    await clock.advance(10_000);
    expect(served.payments()).toBe(before);
    await served.close(); // twice: the same promise
  });
});
