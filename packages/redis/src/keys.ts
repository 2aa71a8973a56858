// Key naming shared by everything in @breakwater/redis (the rate limiter, the breaker sync).
// A component's name is user input: it may hold braces, spaces, colons, any unicode. The key
// carries it hex-encoded (UTF-8 bytes, two lowercase hex digits each) inside one hash tag, so:
//   - the key is in one Redis Cluster slot whatever the name (the tag holds only [0-9a-f]);
//   - two names never give the same key (hex of UTF-8 is injective, and the prefix names the kind);
//   - nothing of the name is ever interpreted by Redis or by a script (keys go through KEYS[] only).

/** A surrogate that is not half of a pair (what `String.prototype.isWellFormed` looks for; ES2024). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The prefix of every key @breakwater/redis writes. */
const ROOT = 'breakwater';

/**
 * The UTF-8 bytes of `name` as lowercase hex: `'pg'` → `'7067'`. Injective: a string that is not
 * well-formed UTF-16 (a lone surrogate, which UTF-8 cannot carry) is written `u` + the hex of its
 * UTF-16 code units instead, which no UTF-8 hex can equal.
 *
 * @example
 * ```ts
 * hexName('pg'); // '7067'
 * ```
 */
export function hexName(name: string): string {
  if (!LONE_SURROGATE.test(name)) return Buffer.from(name, 'utf8').toString('hex');
  return `u${Buffer.from(name, 'utf16le').toString('hex')}`;
}

/**
 * The key of the component of kind `kind` (a short tag such as `'rl'`, `'cb'`) named `name`:
 * `breakwater:<kind>:{<hex of name>}`, followed by `:<suffix>` when a component needs several keys
 * (all in the same slot, since the hash tag is the same).
 *
 * @example
 * ```ts
 * componentKey('rl', 'pg');          // 'breakwater:rl:{7067}'
 * componentKey('cb', 'pg', 'state'); // 'breakwater:cb:{7067}:state'
 * ```
 */
export function componentKey(kind: string, name: string, suffix?: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(kind)) throw new TypeError(`componentKey: kind must be a short lowercase tag, got '${kind}'`);
  // An empty tag would hash the whole key, and a component's keys could then be in several slots.
  if (typeof name !== 'string' || name.length === 0) throw new TypeError(`componentKey: name must be a non-empty string, got '${String(name)}'`);
  const key = `${ROOT}:${kind}:{${hexName(name)}}`;
  return suffix === undefined ? key : `${key}:${suffix}`;
}

/**
 * The key of the RedisRateLimiter named `name`: `breakwater:rl:{<hex of name>}` (one hash).
 *
 * @example
 * ```ts
 * rateLimiterKey('pg'); // 'breakwater:rl:{7067}'
 * ```
 */
export function rateLimiterKey(name: string): string {
  return componentKey('rl', name);
}

/**
 * The part of `key` Redis Cluster hashes: the text between the first `{` and the first `}` after
 * it, when that is not empty; else the whole key (the rule of `CLUSTER KEYSLOT`).
 *
 * @example
 * ```ts
 * hashTag('breakwater:rl:{7067}'); // '7067'
 * ```
 */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/**
 * The Redis Cluster slot of `key` (0-16383): CRC16-CCITT (XModem) of its {@link hashTag}'s UTF-8
 * bytes, mod 16384 — what `CLUSTER KEYSLOT` answers.
 *
 * @example
 * ```ts
 * keySlot('{user1000}.following') === keySlot('{user1000}.followers'); // true
 * ```
 */
export function keySlot(key: string): number {
  let crc = 0;
  for (const byte of Buffer.from(hashTag(key), 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
