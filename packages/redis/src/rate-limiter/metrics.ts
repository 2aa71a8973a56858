import type { RedisRateLimiterMetrics } from './events.js';
import type { Fallback } from './fallback.js';
import type { ScriptReply } from './reply.js';

/**
 * A RedisRateLimiter's metrics: during an outage the fallback's (the local limiter's figures, or
 * what `'fail-open'` / `'fail-closed'` amount to); else Redis's last answer to this instance.
 */
export function metricsOf(
  down: boolean,
  fallback: Fallback,
  last: ScriptReply | undefined,
  limit: number,
  waiting: number,
  storeStateLost: number,
): RedisRateLimiterMetrics {
  if (down) {
    const store = fallback.mode;
    const local = fallback.local?.metrics;
    if (local !== undefined) return { ...local, numberOfWaitingCalls: local.numberOfWaitingCalls + waiting, store, storeStateLost };
    return { availablePermissions: store === 'fail-open' ? limit : 0, numberOfWaitingCalls: waiting, waitMs: 0, cycle: -1, store, storeStateLost };
  }
  if (last === undefined) return { availablePermissions: limit, numberOfWaitingCalls: waiting, waitMs: 0, cycle: -1, store: 'redis', storeStateLost };
  return { availablePermissions: last.permissions, numberOfWaitingCalls: waiting, waitMs: last.waitOneMs, cycle: last.cycle, store: 'redis', storeStateLost };
}
