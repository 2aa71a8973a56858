import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallNotPermittedError, type CircuitBreaker } from '@breakwater/circuit-breaker';
import { sleep, systemClock, type Clock } from '@breakwater/core';
import { health } from '@breakwater/observe';
import { PrometheusMetrics } from '@breakwater/prometheus';
import { Registry } from 'prom-client';
import { pgClient } from './client.js';
import { PaymentGateway } from './gateway.js';
import { seededRandom } from './random.js';

export interface ServeOptions {
  /** The port on 127.0.0.1; 0 (the default) lets the system pick a free one. */
  readonly port?: number;
  /** The random gateway's seed (default 42). */
  readonly seed?: number;
  /** Where the progress lines go (default: nothing). */
  readonly out?: (text: string) => void;
  /** The experiment's clock (default `systemClock`; a test drives it with a `VirtualClock`). */
  readonly clock?: Clock;
}

/** A running `serve()`: the server's URL, what the experiment did so far, and how to stop both. */
export interface Served {
  /** `http://127.0.0.1:<port>` (`/metrics` and `/health` under it). */
  readonly url: string;
  /** The experiment's breaker (`/metrics` and `/health` show it as `pg`). */
  readonly breaker: CircuitBreaker;
  /** Payments finished so far (ok, failed or refused). */
  readonly payments: () => number;
  /**
   * Stops the payments (the one in flight is aborted, with its timers) and closes the server
   * (open connections too); resolves once both are done. Calling it twice returns the same promise.
   */
  readonly close: () => Promise<void>;
}

/**
 * Experiment 1 of the documents on the real clock — payments one after another through
 * Retry(3) → CircuitBreaker → TimeLimiter against the random gateway, without end — with
 * `/metrics` (prom-client, `PrometheusMetrics`) and `/health` (`health()` of @breakwater/observe) on 127.0.0.1.
 */
export async function serve(options: ServeOptions = {}): Promise<Served> {
  const out = options.out ?? (() => {});
  const clock = options.clock ?? systemClock;
  const gateway = new PaymentGateway({ clock, random: seededRandom(options.seed ?? 42) });
  const { pipeline, breaker, retry, timeLimiter } = pgClient({ clock, gateway });

  const registry = new Registry();
  const metrics = new PrometheusMetrics({ registry });
  const unbind = [breaker, retry, timeLimiter].map((c) => metrics.add(c));

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    } else if (path === '/health') {
      const snapshot = health(breaker, retry, timeLimiter);
      res.writeHead(snapshot.status === 'DOWN' ? 503 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(snapshot, null, 2));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('try /metrics or /health\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  breaker.on('stateTransition', (e) => out(`breaker pg: ${e.from} → ${e.to} (${e.cause})`));

  const stop = new AbortController();
  let payments = 0;
  const loop = (async () => {
    while (!stop.signal.aborted) {
      const req = { orderId: `order-${payments + 1}`, amount: 100 };
      const outcome = await pipeline
        .execute((ctx) => gateway.requestPayment(req, { signal: ctx.signal }), { signal: stop.signal })
        .then(
          () => 'ok',
          (e: unknown) => (e instanceof CallNotPermittedError ? 'refused' : 'failed'),
        );
      if (stop.signal.aborted) break;
      payments++;
      // An OPEN breaker refuses at once: pace the refused payments instead of spinning (a stop ends the pause).
      if (outcome === 'refused') await sleep(clock, 200, stop.signal).catch(() => {});
    }
  })();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stop.abort(new Error('pnpm demo --serve: stopped'));
      await loop;
      for (const u of unbind) u();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    })());

  return { url, breaker, payments: () => payments, close };
}

/** `pnpm demo --serve [port]`: serves until Ctrl-C (SIGINT) or SIGTERM, then closes cleanly. */
export async function serveUntilSignal(port: number, seed: number, out: (text: string) => void): Promise<void> {
  const served = await serve({ port, seed, out });
  out(`Breakwater — experiment 1 (retry=3) on the real clock, seed ${seed}, without end`);
  out(`  ${served.url}/metrics   Prometheus text (prom-client, @breakwater/prometheus)`);
  out(`  ${served.url}/health    health() of the breaker, retry and time limiter, as JSON`);
  out('Ctrl-C stops it.');
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await served.close();
  out(`stopped after ${served.payments()} payments.`);
}
