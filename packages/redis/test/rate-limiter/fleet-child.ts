// One process of the fleet test (fleet.test.ts): a RedisRateLimiter on a shared name, hammered by
// a few concurrent loops for `durationMs`; prints the permits granted per cycle as Redis counted
// them (the `cycle` of each successfulAcquire). Protocol: prints "ready", waits for "go" on stdin,
// prints one JSON line, exits. Run as `node --import tsx --conditions=@breakwater/source fleet-child.ts`.
import { createInterface } from 'node:readline';
import { createClient } from 'redis';
import { RedisRateLimiter } from '../../src/rate-limiter/redis-rate-limiter.js';

const [url, name, limit, period, durationMs] = process.argv.slice(2);
const client = createClient({ url: url! });
client.on('error', () => {});
await client.connect();
const limiter = new RedisRateLimiter(name!, {
  client,
  limitForPeriod: Number(limit),
  limitRefreshPeriod: Number(period),
  timeoutDuration: 2 * Number(period),
  commandTimeout: 2000,
  onStoreError: 'fail-closed',
});
const grants: Record<string, number> = {};
let fromFallback = 0;
limiter.on('successfulAcquire', (e) => {
  if (e.cycle < 0) fromFallback += e.permits;
  else grants[e.cycle] = (grants[e.cycle] ?? 0) + e.permits;
});

const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.on('line', (line) => line.trim() === 'go' && resolve()));
process.stdout.write('ready\n');
await go;
lines.close();

let refused = 0;
let errors = 0;
const deadline = Date.now() + Number(durationMs);
async function loop(): Promise<void> {
  while (Date.now() < deadline) {
    try {
      await limiter.acquirePermission();
    } catch (error) {
      if ((error as Error).name === 'RequestNotPermittedError') refused += 1;
      else errors += 1;
    }
  }
}
await Promise.all([loop(), loop(), loop()]);
process.stdout.write(`${JSON.stringify({ grants, refused, errors, fromFallback })}\n`);
client.destroy();
