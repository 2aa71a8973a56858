/**
 * The events of a {@link RedisBreakerSync}, by type. Each also carries `type`, `name` (the sync's
 * `instanceId`) and `at` (the sync's clock). What moved a breaker is on the breaker itself: its
 * `stateTransition` says `cause: 'fleet'` when the sync moved it.
 *
 * @example
 * ```ts
 * sync.on('storeError', (e) => log.warn(`fleet sync off, breakers on their own: ${String(e.error)}`));
 * sync.on('storeRecovered', () => log.info('fleet sync back'));
 * sync.on('fleetOpened', (e) => log.warn(`${e.breakerName}: the fleet opened for ${e.remainingMs} ms`));
 * ```
 */
export type RedisBreakerSyncEvents = {
  /** Redis failed or is unreachable: from now on every breaker goes on alone. Once per outage (and once per other failed command). */
  storeError: { readonly error: unknown; readonly operation: string };
  /** Both connections are ready again: each attached name's fleet state was re-read (not replayed). */
  storeRecovered: Record<never, never>;
  /** An instance (this one or another) opened, the fleet has not (yet): `count` of `quorum` within the window. */
  peerOpened: { readonly breakerName: string; readonly instanceId: string; readonly count: number; readonly quorum: number };
  /** The fleet is OPEN for `remainingMs` more (quorum reached, a trial failed, or read at attach/recovery); this breaker is held OPEN. */
  fleetOpened: { readonly breakerName: string; readonly remainingMs: number };
  /** A trial closed the fleet (or the fleet was found closed): this breaker is CLOSED. */
  fleetClosed: { readonly breakerName: string };
  /** This instance took the trial lease and moved its breaker to HALF_OPEN. */
  trialStarted: { readonly breakerName: string; readonly leaseMs: number };
  /** This instance's trial reached the end of its lease undecided: back to OPEN, the lease freed. */
  trialAbandoned: { readonly breakerName: string };
  /** An operator override reached this instance: `'FORCED_OPEN'`, `'DISABLED'`, or `null` for a release. */
  overridden: { readonly breakerName: string; readonly state: 'FORCED_OPEN' | 'DISABLED' | null };
  /**
   * A value in this name's fleet state that the sync does not believe, found in Redis (an operator
   * typed it, another program wrote it): an `override` other than `FORCED_OPEN` / `DISABLED` is
   * treated as no override; an `until` (the fleet's OPEN deadline) that is no number, or further
   * away than this instance's own wait at the fleet's attempt, as passed. Told once per value
   * (again only after it changed); `value` is the field as Redis holds it.
   */
  storeValueIgnored: { readonly breakerName: string; readonly field: 'override' | 'until'; readonly value: string };
};

/** Every event type a sync publishes. */
export const SYNC_EVENT_TYPES = [
  'storeError',
  'storeRecovered',
  'peerOpened',
  'fleetOpened',
  'fleetClosed',
  'trialStarted',
  'trialAbandoned',
  'overridden',
  'storeValueIgnored',
] as const satisfies readonly (keyof RedisBreakerSyncEvents)[];
