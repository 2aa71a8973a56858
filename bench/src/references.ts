// The no-policy reference cases: what any implementation of a policy must do on each call, timed in
// the same rounds as the policies, so a target can say what is the policy's own cost and what is the
// machine's (a clock reading costs 25-110 ns on the VMs we measure on, more than some whole policies).
import { bw, type Case } from './harness.js';
import { work } from './work.js';

/** The names of the reference cases (shown, not judged; targets find them by name). */
export const REFERENCES = {
  /** A `then` that sees the call settle: what every policy that must see an outcome pays. */
  seen: 'await fn() seen by a then (no policy: seeing the outcome alone)',
  /** Two clock readings, the second in that `then`: what timing a call costs (a breaker's slow calls, an adaptive limiter's round trip). */
  timed: 'await fn() between two performance.now() readings, the second in a then (no policy: timing a call alone)',
  /** One clock reading before the call: what knowing when a call started costs (a hedge's delay on its shared timer). */
  read: 'await fn() after one performance.now() reading (no policy: reading the clock alone)',
} as const;

// The `then`'s handlers, built once (as the policies bind theirs).
const rethrow = (error: unknown): never => {
  throw error;
};
const passOn = <T>(value: T): T => value;
const readThenPass = <T>(value: T): T => {
  performance.now();
  return value;
};

/** The reference case `name` of {@link REFERENCES}, for a row's cases. */
export function reference(name: keyof typeof REFERENCES): Case {
  switch (name) {
    case 'seen':
      return bw(REFERENCES.seen, () => work().then(passOn, rethrow), { informational: true });
    case 'read':
      return bw(
        REFERENCES.read,
        () => {
          performance.now();
          return work();
        },
        { informational: true },
      );
    case 'timed':
      return bw(
        REFERENCES.timed,
        () => {
          performance.now();
          return work().then(readThenPass, rethrow);
        },
        { informational: true },
      );
  }
}
