import { count, LIMITS, phaseRequests } from './limits.js';
import type { Backend, Phase, Traffic } from './scenario.js';
import { FileReadError } from './read-file.js';
import { parseTrace } from './trace.js';
import { choice, duration, latency, number, ratio, text } from './values.js';
import type { Entry, YamlSource } from './yaml-source.js';

const BACKEND_KEYS = ['errorRatio', 'hangRatio', 'latency', 'errorLatency', 'slowRatio', 'slowLatency', 'capacity', 'queueLimit'] as const;
const PHASE_KEYS = ['name', 'duration', 'pause', 'rate', 'arrivals', 'users', 'thinkTime', 'requests', ...BACKEND_KEYS] as const;

const START: Backend = { errorRatio: 0, hangRatio: 0, latency: { kind: 'fixed', ms: 0 }, errorLatency: { kind: 'fixed', ms: 0 } };

/** The backend of a phase: the keys it gives, the previous phase's for the others. */
function backendOf(src: YamlSource, keys: Map<string, Entry>, previous: Backend | undefined): Backend {
  const get = <T>(key: string, read: (e: Entry) => T, fallback: T): T => {
    const e = keys.get(key);
    return e === undefined ? fallback : read(e);
  };
  const base = previous ?? START;
  const ownLatency = get('latency', (e) => latency(src, e), undefined);
  const capacity = get('capacity', (e) => unlimitedOr(src, e, 1, 'calls served at once'), base.capacity ?? Infinity);
  const queueLimit = get('queueLimit', (e) => unlimitedOr(src, e, 0, 'calls that may wait at the backend'), base.queueLimit ?? Infinity);
  const limitEntry = keys.get('queueLimit');
  if (limitEntry !== undefined && queueLimit !== Infinity && capacity === Infinity) {
    src.fail(limitEntry.keyNode, limitEntry.path, "a queue limit needs a 'capacity' (the calls beyond it are the ones that wait)");
  }
  const backend: Backend = {
    errorRatio: get('errorRatio', (e) => ratio(src, e), base.errorRatio),
    hangRatio: get('hangRatio', (e) => ratio(src, e), base.hangRatio),
    latency: ownLatency ?? base.latency,
    // Errors take as long as successes unless told otherwise (in the first phase, or when latency changes).
    errorLatency: get(
      'errorLatency',
      (e) => latency(src, e),
      previous === undefined || ownLatency !== undefined ? (ownLatency ?? base.latency) : base.errorLatency,
    ),
    ...(capacity === Infinity && queueLimit === Infinity ? {} : { capacity, queueLimit }),
    ...slowTail(src, keys, base),
  };
  const both = keys.get('hangRatio') ?? keys.get('errorRatio');
  if (backend.errorRatio + backend.hangRatio > 1) {
    const carried = !keys.has('errorRatio') ? 'errorRatio' : !keys.has('hangRatio') ? 'hangRatio' : undefined;
    const hint = carried === undefined ? '' : ` (${carried} ${backend[carried]} is carried over from the phase before: give ${carried} here)`;
    src.fail(both?.value, both?.path ?? '', `errorRatio + hangRatio must be <= 1, got ${backend.errorRatio} + ${backend.hangRatio}${hint}`);
  }
  return backend;
}

/** A phase's slow tail (`slowRatio` of the successful calls take `slowLatency`): its own keys, else the previous phase's. */
function slowTail(src: YamlSource, keys: Map<string, Entry>, base: Backend): Pick<Backend, 'slowRatio' | 'slowLatency'> {
  const ratioEntry = keys.get('slowRatio');
  const latencyEntry = keys.get('slowLatency');
  const slowRatio = ratioEntry === undefined ? base.slowRatio : ratio(src, ratioEntry);
  const slowLatency = latencyEntry === undefined ? base.slowLatency : latency(src, latencyEntry);
  if (slowRatio !== undefined && slowRatio > 0 && slowLatency === undefined)
    src.fail(ratioEntry!.keyNode, ratioEntry!.path, "a slow tail needs 'slowLatency': how long its calls take (e.g. { uniform: [150ms, 250ms] })");
  if (latencyEntry !== undefined && slowRatio === undefined)
    src.fail(latencyEntry.keyNode, latencyEntry.path, "'slowLatency' is for the calls 'slowRatio' makes slow: give slowRatio too");
  return slowRatio === undefined ? {} : { slowRatio, slowLatency: slowLatency! };
}

/** A whole number >= `min`, or `unlimited` (Infinity). */
function unlimitedOr(src: YamlSource, e: Entry, min: number, what: string): number {
  const raw = src.js(e.value);
  if (raw === 'unlimited') return Infinity;
  if (typeof raw !== 'number') src.fail(e.value, e.path, `must be a whole number >= ${min} or 'unlimited', got ${JSON.stringify(raw)} (${what})`);
  return number(src, e, { min, integer: true, hint: `${what}, or 'unlimited'` });
}

function phaseOf(src: YamlSource, e: Entry, index: number, previous: Backend | undefined): Phase {
  const keys = src.entries(e.value, e.path, PHASE_KEYS, 'a phase');
  const name = keys.has('name') ? text(src, keys.get('name')!) : `phase ${index + 1}`;
  const backend = backendOf(src, keys, previous);
  const pause = keys.get('pause');
  const base = { name, backend, rate: 0, users: 0, thinkTimeMs: 0, maxRequests: Infinity };
  if (pause !== undefined) {
    for (const k of ['duration', 'rate', 'arrivals', 'users', 'thinkTime', 'requests']) {
      const extra = keys.get(k);
      if (extra !== undefined)
        src.fail(extra.keyNode, extra.path, "a pause sends no request: give 'pause: <duration>' alone (with backend keys if the backend changes)");
    }
    return { ...base, durationMs: duration(src, pause, { positive: true }), arrivals: 'none' };
  }
  const durationEntry = keys.get('duration') ?? src.fail(e.value, e.path, "needs 'duration' (or is a 'pause')");
  const durationMs = duration(src, durationEntry, { positive: true });
  const maxRequests = keys.has('requests') ? number(src, keys.get('requests')!, { min: 1, integer: true }) : Infinity;
  const rate = keys.get('rate');
  const users = keys.get('users');
  if (rate !== undefined && users !== undefined) src.fail(users.keyNode, users.path, "give 'rate' (open loop) or 'users' (closed loop), not both");
  if (users !== undefined) {
    const arrivals = keys.get('arrivals');
    if (arrivals !== undefined && src.js(arrivals.value) !== 'closed')
      src.fail(arrivals.value, arrivals.path, "'users' is a closed loop: arrivals must be 'closed' or left out");
    const thinkTimeMs = keys.has('thinkTime') ? duration(src, keys.get('thinkTime')!) : 0;
    if (thinkTimeMs === 0 && maxRequests === Infinity) {
      src.fail(
        users.keyNode,
        users.path,
        "a closed loop with no think time sends requests without end while they are refused at once: give 'thinkTime' or 'requests'",
      );
    }
    return {
      ...base,
      durationMs,
      arrivals: 'closed',
      users: number(src, users, { min: 1, max: LIMITS.maxUsers, integer: true, hint: 'each user has a request in flight from the start' }),
      thinkTimeMs,
      maxRequests,
    };
  }
  if (rate === undefined) src.fail(e.value, e.path, "needs 'rate' (requests per second) or 'users' (a closed loop), or is a 'pause'");
  const think = keys.get('thinkTime');
  if (think !== undefined) src.fail(think.keyNode, think.path, "'thinkTime' is for a closed loop ('users')");
  return {
    ...base,
    durationMs,
    rate: number(src, rate, { gt: 0, hint: "a pause is 'pause: <duration>'" }),
    arrivals: keys.has('arrivals') ? choice(src, keys.get('arrivals')!, ['poisson', 'constant'] as const) : 'poisson',
    maxRequests,
  };
}

/** The `traffic:` mapping: `phases:` (a list), or `trace:` (a JSONL or CSV file, relative to the scenario). */
export function parseTraffic(src: YamlSource, entry: Entry, readTrace: (path: string) => { file: string; text: string }): Traffic {
  const keys = src.entries(entry.value, entry.path, ['phases', 'trace'], 'the traffic');
  const phases = keys.get('phases');
  const trace = keys.get('trace');
  if ((phases === undefined) === (trace === undefined)) src.fail(entry.keyNode, entry.path, "give 'phases' or 'trace' (one of them)");
  if (trace !== undefined) {
    const path = text(src, trace);
    let read: { file: string; text: string };
    try {
      read = readTrace(path);
    } catch (error) {
      // The reason says what the path is (a FIFO, a device, too large), never what it holds.
      const reason = error instanceof FileReadError ? error.reason : (error as Error).message;
      src.fail(trace.value, trace.path, `cannot read the trace ${path}: ${reason}`);
    }
    return { kind: 'trace', name: path, entries: parseTrace(read.file, read.text) };
  }
  const list = src.items(phases!.value, phases!.path);
  if (list.length === 0) src.fail(phases!.value, phases!.path, 'needs at least one phase');
  const out: Phase[] = [];
  let requests = 0;
  list.forEach((node, i) => {
    const entry: Entry = { key: String(i), path: `${phases!.path}[${i}]`, keyNode: node, value: node };
    const phase = phaseOf(src, entry, i, out.at(-1)?.backend);
    out.push(phase);
    // The requests the traffic can send, phase after phase: refused where the sum passes what a run can take.
    const most = phaseRequests(phase);
    requests += most.requests;
    if (requests > LIMITS.maxRequests) {
      const key = src.entries(node, entry.path, PHASE_KEYS).get(most.how === 'requests' ? 'requests' : phase.arrivals === 'closed' ? 'users' : 'rate')!;
      src.fail(
        key.value,
        key.path,
        `the traffic sends about ${count(requests)} requests up to here (${most.how}); a run takes at most ${count(LIMITS.maxRequests)} (about 10 minutes per configuration): a lower rate, a shorter phase, or 'requests'`,
      );
    }
  });
  return { kind: 'phases', phases: out };
}
