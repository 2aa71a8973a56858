import { hexName } from '../keys.js';

// The Redis names of one breaker name's fleet state. A breaker name is user input: it is
// hex-encoded (UTF-8) inside the hash tag, so braces, spaces, colons or any unicode can neither
// collide with another name nor escape the tag, and every key of one name lands in one Redis
// Cluster slot (scripts touch several of them at once). Keys are built here, in TypeScript,
// and handed to the scripts as KEYS: no script ever builds a key from a name. With the default
// prefix they follow the package's naming (keys.ts): `breakwater:cb:{<hex>}:<part>`.

/** The keys and the pub/sub channel of one breaker name. */
export interface BreakerKeys {
  /** Hash: `ver` (bumped on every fleet state change), `override` ('FORCED_OPEN' | 'DISABLED'), `until` (the fleet's OPEN deadline, Redis ms). */
  readonly state: string;
  /** Sorted set: instanceId → Redis time (ms) of its latest opening, trimmed to the quorum window. */
  readonly opened: string;
  /** String: the instanceId holding the half-open trial lease (`SET NX PX`). */
  readonly lease: string;
  /** The pub/sub channel state changes of this name are published on. */
  readonly channel: string;
}

/** The keys of breaker `name` under `prefix` (default `'breakwater:cb:'`): `<prefix>{<hex>}:state` … */
export function breakerKeys(prefix: string, name: string): BreakerKeys {
  const base = `${prefix}{${hexName(name)}}`;
  return { state: `${base}:state`, opened: `${base}:opened`, lease: `${base}:lease`, channel: `${base}:events` };
}
