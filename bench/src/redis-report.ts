import type { RedisRowResult, Results, Target, Verdict } from './results.js';

function ratio(r: RedisRowResult): number {
  return r.breakwater / r.peer;
}

function figure(r: RedisRowResult, value: number): string {
  return r.unit === 'µs/op' ? `${value.toFixed(1)} µs/op` : `${Math.round(value).toLocaleString('en-US')} ops/s`;
}

/** Row 11's lines, as plain text. */
export function formatRedisText(rows: readonly RedisRowResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`\n${r.id}. ${r.title} (${r.server})`);
    out.push(`  Breakwater RedisRateLimiter.acquirePermission()  ${figure(r, r.breakwater).padStart(16)}  ${ratio(r).toFixed(2)}× the peer`);
    out.push(`  ${r.peerName.padEnd(47)}  ${figure(r, r.peer).padStart(16)}`);
  }
  return out;
}

/** Row 11's tables, as Markdown. */
export function formatRedisMarkdown(rows: readonly RedisRowResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`### ${r.id}. ${r.title}`, '', `Server: ${r.server}.`, '', `| name | ${r.unit} | × peer |`, '|---|---:|---:|');
    out.push(`| **Breakwater RedisRateLimiter.acquirePermission()** | ${figure(r, r.breakwater)} | ${ratio(r).toFixed(2)} |`);
    out.push(`| ${r.peerName} | ${figure(r, r.peer)} | 1.00 |`, '');
  }
  return out;
}

/**
 * Row 11's target: latency (`µs/op`) at most `factor` × the peer's, or throughput (`ops/s`) at
 * least `factor` × the peer's.
 */
export function redisAgainstPeer(id: string, factor: number): Target {
  const description = `row ${id}: Breakwater's RedisRateLimiter ${id.endsWith('a') ? `latency ≤ ${factor} ×` : `throughput ≥ ${factor} ×`} rate-limiter-flexible's RateLimiterRedis`;
  return {
    description,
    judge(results: Results): Verdict {
      const r = results.redis?.find((x) => x.id === id);
      if (r === undefined) throw new Error(`no row '${id}' in the results`);
      const pass = r.unit === 'µs/op' ? r.breakwater <= factor * r.peer : r.breakwater >= factor * r.peer;
      return { target: description, pass, detail: `${figure(r, r.breakwater)} against ${figure(r, r.peer)} (${ratio(r).toFixed(2)}×)` };
    },
  };
}
