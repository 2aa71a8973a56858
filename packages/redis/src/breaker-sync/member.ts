import type { CircuitBreaker, CircuitBreakerEvents } from '@breakwater/circuit-breaker';
import { IllegalStateTransitionError, type EventOf, type EventPublisher, type TimerHandle } from '@breakwater/core';
import { boundAttempt, boundMs, MAX_MS } from './bounds.js';
import type { RedisBreakerSyncEvents } from './events.js';
import type { BreakerKeys } from './keys.js';
import { parseMessage, type FleetMessage } from './messages.js';
import { ABANDON, DECIDE, OPENED, READ, RENEW, TRY_LEASE } from './scripts.js';
import type { Store } from './store.js';

// One attached breaker's side of the fleet protocol. Nothing here runs per call: the breaker
// keeps its own window, and this member acts only on the breaker's state changes, on the fleet's
// messages and on one timer. Modes:
// - 'free': the breaker is its own (CLOSED, or OPEN alone below quorum);
// - 'held': the fleet is OPEN; the breaker is held OPEN (transitionToOpenStateUntil, cause 'fleet')
//   until the fleet's wait is over plus a grace, and the timer tries the trial lease at that time;
// - 'trial': this instance holds the lease and its breaker runs the half-open trial; the outcome is
//   published; the timer renews the lease every half lease while a trial call is out, and gives the
//   trial back just before the lease ends when none is;
// - 'override': an operator forced the fleet open or disabled it.
// The grace (one lease) keeps a held breaker from going HALF_OPEN on its own while Redis answers;
// when Redis cannot answer, the hold simply runs out and the breaker goes on alone.

export interface MemberContext {
  readonly instanceId: string;
  readonly quorum: number;
  readonly quorumWindow: number;
  readonly store: Store;
  readonly events: EventPublisher<RedisBreakerSyncEvents>;
  /** The random source of the jitter (the `random` option). */
  readonly random: () => number;
  /** Tells an error that is a bug, not Redis's (a process warning): the sync goes on. */
  readonly warn: (error: unknown) => void;
}

type Mode = 'free' | 'held' | 'trial' | 'override';

/** How long before the lease ends the holder gives up an undecided trial (the lease's own expiry is Redis's). */
function margin(lease: number): number {
  return Math.min(50, lease / 10);
}

export class FleetMember {
  mode: Mode = 'free';
  #ver = -1;
  /** The fleet's opening attempt, as last read (a failed trial waits the next one's wait). */
  #fleetAttempt = 1;
  #timer: TimerHandle | undefined;
  #detached = false;
  /** In 'held': when the fleet's wait ends (its breaker's clock). */
  #fleetDeadline = 0;
  /** In 'trial': when the lease ends as this instance counts it (its breaker's clock). */
  #leaseEnd = 0;
  /** Whether a read for a notice is in flight, and whether another notice came meanwhile. */
  #reading = false;
  #readAgain = false;
  /** The value of each field last reported as not believed, '' when the last reply that read it believed it. */
  readonly #reported = { override: '', until: '' };
  readonly #unsubscribe: () => void;
  readonly #name: string;

  constructor(
    readonly breaker: CircuitBreaker,
    readonly keys: BreakerKeys,
    readonly lease: number,
    readonly ctx: MemberContext,
  ) {
    this.#name = breaker.name;
    this.#unsubscribe = breaker.on('stateTransition', (e) => this.#onTransition(e));
  }

  // ——— Reading the fleet state (attach, recovery, a notice on the channel) ———

  /**
   * Reads the fleet state and applies it if its `ver` is newer than what was applied (or as new,
   * with `equalToo`: attach, recovery, a script that found the state moved on).
   */
  async read(equalToo = true): Promise<void> {
    const fleet = await this.ctx.store.run(READ, this.keys, []);
    if (fleet === undefined || this.#detached) return;
    this.#ignored('override', fleet.ignoredOverride);
    if (!this.#newer(fleet.ver, equalToo)) return;
    if (fleet.kind === 'overridden') return this.#override(fleet.override);
    if (this.mode === 'override') this.#override(null);
    if (fleet.kind === 'open') {
      this.#fleetAttempt = boundAttempt(fleet.attempt);
      this.#fleetOpen(this.#believed(fleet.remainingMs, fleet.until, fleet.untilIgnored));
    } else if (this.mode === 'held' || this.mode === 'trial') this.#fleetClosed();
  }

  /**
   * A notice of a change: one read at a time; the notices that come meanwhile make one more read
   * after it, however many they are (a burst of forged ones costs two reads, a flood one read per
   * round trip: never a read per message).
   */
  #reread(): void {
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = true;
    void this.read(false).finally(() => {
      this.#reading = false;
      if (!this.#readAgain || this.#detached) return;
      this.#readAgain = false;
      this.#reread();
    });
  }

  /** Redis restarted or came back: its `ver` may start over; the next read is the truth. */
  forgetVersion(): void {
    this.#ver = -1;
  }

  /** A value of `field` that was not believed ('' when it was): told once per value. */
  #ignored(field: 'override' | 'until', v: string): void {
    if (v === this.#reported[field]) return;
    this.#reported[field] = v;
    if (v !== '') this.#emit('storeValueIgnored', { breakerName: this.#name, field, value: v });
  }

  /**
   * This instance's own wait at the fleet's attempt: the longest the fleet may hold it (docs/scale-out.md:
   * no value in the store holds an instance OPEN longer than its own configuration allows).
   */
  #cap(): number {
    return boundMs(this.breaker.config.waitInOpenState(this.#fleetAttempt));
  }

  /**
   * The fleet's time left as a script read it, or 0 when it cannot be believed: `until` was no
   * number or beyond any duration (`ignored`), or it lies further away than this instance's own
   * wait at the fleet's attempt. What is not believed counts as passed, and is reported once.
   */
  #believed(remaining: number, until: string, ignored: string): number {
    const ms = boundMs(remaining);
    const believed = ignored === '' && ms <= this.#cap();
    this.#ignored('until', believed ? '' : until);
    return believed ? ms : 0;
  }

  /** Whether `ver` is not older than what was applied (and remember it). */
  #newer(ver: number, equalToo: boolean): boolean {
    if (ver < this.#ver || (!equalToo && ver === this.#ver)) return false;
    this.#ver = ver;
    return true;
  }

  // ——— Messages ———

  onMessage(raw: string): void {
    if (this.#detached) return;
    const m: FleetMessage | undefined = parseMessage(raw);
    if (m === undefined) return;
    if (m.t === 'opened') {
      if (m.from === this.ctx.instanceId) return; // told from the script's reply already
      this.#emit('peerOpened', { breakerName: this.#name, instanceId: m.from, count: m.count, quorum: this.ctx.quorum });
      return;
    }
    // A state change, as the message claims it: the store says what it is (a version is believed
    // only as far as the store confirms it, so a forged message cannot pin this instance).
    if (m.ver <= this.#ver || m.from === this.ctx.instanceId) return; // applied already (a reply, an earlier read)
    this.#reread();
  }

  // ——— The breaker's own transitions ———

  #onTransition(e: EventOf<CircuitBreakerEvents, 'stateTransition'>): void {
    if (e.cause === 'fleet') return; // ours (or another sync's): nothing to tell the fleet
    if (e.cause === 'manual') {
      // The application took this breaker in hand: the fleet lets go of it.
      if (this.mode === 'trial') void this.ctx.store.run(ABANDON, this.keys, [this.ctx.instanceId]);
      if (this.mode !== 'override') this.#setMode('free');
      return;
    }
    if (this.mode === 'trial' && e.from === 'HALF_OPEN' && (e.to === 'CLOSED' || e.to === 'OPEN')) {
      void this.#decide(e.to);
    } else if (this.mode === 'held' && e.from === 'OPEN') {
      // The hold ran out before Redis answered (slow or unreachable): this breaker went its own way.
      this.#setMode('free');
    } else if (e.to === 'OPEN' && (e.cause === 'failure_rate' || e.cause === 'slow_call_rate') && this.mode === 'free') {
      void this.#opened();
    }
  }

  /** This breaker opened on its own: record it toward the quorum (one script, one publish). */
  async #opened(): Promise<void> {
    const ctx = this.ctx;
    const attempt = this.#openingAttempt();
    const wait = Math.max(boundMs(this.breaker.config.waitInOpenState(attempt)), 1);
    const reply = await ctx.store.run(OPENED, this.keys, [ctx.instanceId, ctx.quorumWindow, ctx.quorum, wait, this.keys.channel, attempt]);
    if (reply === undefined || this.#detached) return;
    this.#ignored('override', reply.ignoredOverride);
    if (reply.kind === 'recorded') this.#emit('peerOpened', { breakerName: this.#name, instanceId: ctx.instanceId, count: reply.count, quorum: ctx.quorum });
    else if (reply.kind === 'fleetOpened' || reply.kind === 'alreadyOpen') {
      if (!this.#newer(reply.ver, true) || this.mode !== 'free') return;
      this.#fleetAttempt = boundAttempt(reply.attempt);
      this.#fleetOpen(reply.kind === 'fleetOpened' ? wait : this.#believed(reply.remainingMs, reply.until, reply.untilIgnored));
    }
  }

  /** The lease holder's trial decided: publish it (only while the lease is still ours). */
  async #decide(to: 'CLOSED' | 'OPEN'): Promise<void> {
    this.#setMode('free');
    const next = boundAttempt(this.#fleetAttempt + 1);
    const wait = Math.max(boundMs(this.breaker.config.waitInOpenState(next)), 1);
    const reply = await this.ctx.store.run(DECIDE, this.keys, [this.ctx.instanceId, to, wait, this.keys.channel]);
    if (reply === undefined || this.#detached) return;
    if (reply.kind === 'lost') return void this.read(); // the lease was lost: what did the fleet decide?
    this.#newer(reply.ver, true);
    if (to === 'CLOSED') return this.#emit('fleetClosed', { breakerName: this.#name });
    this.#fleetAttempt = next;
    this.#fleetOpen(wait);
  }

  /**
   * The opening attempt of the breaker that has just opened (read from a snapshot: public API,
   * once per opening, never per call). A fleet opening it forms starts at that attempt, and each
   * failed fleet trial goes one further, so an exponential `waitIntervalFunctionInOpenState` grows
   * across fleet re-openings as across the breaker's own.
   */
  #openingAttempt(): number {
    return boundAttempt(this.breaker.snapshot().attempt);
  }

  // ——— Applying the fleet's state ———

  #fleetOpen(remaining: number): void {
    if (this.mode === 'override') return;
    const state = this.breaker.state;
    if (state !== 'CLOSED' && state !== 'OPEN' && state !== 'HALF_OPEN') return; // the application's own special state
    this.#setMode('held');
    this.#hold(remaining);
    this.#emit('fleetOpened', { breakerName: this.#name, remainingMs: remaining });
  }

  /** Held OPEN until `wait` from now plus a grace; the timer tries the lease at `wait` (plus a small jitter). */
  #hold(wait: number): void {
    const clock = this.breaker.config.clock;
    this.#fleetDeadline = clock.now() + wait;
    this.#transition(() => this.breaker.transitionToOpenStateUntil(clock.now() + wait + this.lease, { cause: 'fleet' }));
    const random = this.ctx.random();
    this.#arm(wait + (random >= 0 && random < 1 ? random * 20 : 0), () => void this.#tryLease());
  }

  async #tryLease(): Promise<void> {
    if (this.mode !== 'held') return;
    const reply = await this.ctx.store.run(TRY_LEASE, this.keys, [this.ctx.instanceId, this.lease, this.#cap(), this.#ver]);
    if (reply === undefined || this.#detached || this.mode !== 'held') return;
    this.#ignored('override', reply.ignoredOverride);
    if (reply.kind === 'granted' || reply.kind === 'waiting' || reply.kind === 'leaseHeld') this.#ignored('until', reply.untilIgnored);
    if (reply.kind === 'closed') this.#fleetClosed();
    else if (reply.kind === 'waiting') this.#hold(boundMs(reply.remainingMs));
    else if (reply.kind === 'leaseHeld') this.#hold(boundMs(reply.ttlMs));
    else if (reply.kind !== 'granted')
      void this.read(); // an override, or a change whose notice is still on its way
    else if (this.breaker.state !== 'OPEN' && this.breaker.state !== 'HALF_OPEN') {
      void this.ctx.store.run(ABANDON, this.keys, [this.ctx.instanceId]); // no longer held: let another run it
      this.#setMode('free');
    } else {
      const lease = boundMs(reply.leaseMs);
      this.#fleetAttempt = boundAttempt(reply.attempt);
      this.#setMode('trial');
      this.#transition(() => this.breaker.transitionToHalfOpenState({ cause: 'fleet' }));
      this.#emit('trialStarted', { breakerName: this.#name, leaseMs: lease });
      this.#leaseEnd = this.breaker.config.clock.now() + lease;
      this.#watchTrial();
    }
  }

  // ——— The trial, while it runs ———
  // Two trials never overlap (contract: docs/scale-out.md): while a trial call of this instance runs, its lease is
  // renewed every half lease, however long the call takes; when no trial call is out as the lease
  // ends, the trial is given back (a quiet holder does not keep the fleet waiting).

  /** The next look at the trial: half a lease from now, or just before the lease ends if that comes first. */
  #watchTrial(): void {
    const clock = this.breaker.config.clock;
    const last = this.#leaseEnd - margin(this.lease);
    this.#arm(Math.min(this.lease / 2, last - clock.now()), () => this.#checkTrial());
  }

  #checkTrial(): void {
    if (this.mode !== 'trial') return;
    if (this.#trialCallOut()) void this.#renew();
    else if (this.breaker.config.clock.now() >= this.#leaseEnd - margin(this.lease)) this.#abandon();
    else this.#watchTrial();
  }

  /** Whether a trial call of this breaker is out (permitted, not yet recorded nor given back). */
  #trialCallOut(): boolean {
    return this.breaker.trialCallsInFlight > 0;
  }

  /** Keeps the lease another lease; a lease lost (or Redis failing) ends the trial as if abandoned. */
  async #renew(): Promise<void> {
    const sentAt = this.breaker.config.clock.now();
    const reply = await this.ctx.store.run(RENEW, this.keys, [this.ctx.instanceId, this.lease]);
    if (this.#detached || this.mode !== 'trial') return; // decided meanwhile, or Redis went away (the breaker goes on alone)
    if (reply?.kind !== 'renewed') return this.#abandon();
    this.#leaseEnd = sentAt + this.lease;
    this.#watchTrial();
  }

  /**
   * No trial call is out as the lease ends (no traffic here, say): back to OPEN, the lease
   * freed. This instance tries again only a lease later, so the others, whose timers fire as the
   * lease expires, come first: a quiet instance does not keep the trial to itself.
   */
  #abandon(): void {
    if (this.mode !== 'trial') return;
    void this.ctx.store.run(ABANDON, this.keys, [this.ctx.instanceId]);
    this.#setMode('held');
    this.#emit('trialAbandoned', { breakerName: this.#name });
    this.#hold(this.lease);
  }

  #fleetClosed(): void {
    if (this.mode !== 'held' && this.mode !== 'trial') return;
    this.#setMode('free');
    if (this.breaker.state !== 'CLOSED') this.#transition(() => this.breaker.transitionToClosedState({ cause: 'fleet' }));
    this.#emit('fleetClosed', { breakerName: this.#name });
  }

  #override(state: 'FORCED_OPEN' | 'DISABLED' | null): void {
    if (state === null) {
      if (this.mode !== 'free' && this.breaker.state !== 'CLOSED') this.#transition(() => this.breaker.transitionToClosedState({ cause: 'fleet' }));
      this.#setMode('free');
    } else {
      this.#setMode('override');
      if (state === 'FORCED_OPEN') this.#transition(() => this.breaker.transitionToForcedOpenState({ cause: 'fleet' }));
      else this.#transition(() => this.breaker.transitionToDisabledState({ cause: 'fleet' }));
    }
    this.#emit('overridden', { breakerName: this.#name, state });
  }

  // ——— Redis down ———

  /**
   * Redis is gone (or hangs): a held breaker is let go — OPEN until the fleet's wait would have
   * ended, no grace (the grace was for Redis's answer), then its own trial; a trial goes on alone.
   */
  storeDown(): void {
    if (this.mode === 'trial') this.#setMode('free');
    if (this.mode !== 'held') return;
    this.#setMode('free');
    const left = Math.max(this.#fleetDeadline - this.breaker.config.clock.now(), 0);
    if (this.breaker.state === 'OPEN') this.#transition(() => this.breaker.transitionToOpenStateFor(left, { cause: 'fleet' }));
  }

  // ——— Plumbing ———

  #setMode(mode: Mode): void {
    this.mode = mode;
    this.#disarm();
  }

  #arm(ms: number, fn: () => void): void {
    this.#disarm();
    // systemClock's timers are unref'd: a background timer never keeps the process alive.
    this.#timer = this.breaker.config.clock.setTimeout(
      () => {
        this.#timer = undefined;
        if (!this.#detached) fn();
      },
      Math.min(Math.max(ms, 0), MAX_MS),
    );
  }

  #disarm(): void {
    if (this.#timer === undefined) return;
    this.breaker.config.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * A transition of ours; one the breaker's state does not allow (an application's listener moved
   * it meanwhile, or METRICS_ONLY cannot open) is skipped: the breaker's state wins. Any other
   * error is a bug, told as a process warning (this runs from timers and replies: a throw would be
   * an unhandled rejection or an uncaught exception) and the sync goes on.
   */
  #transition(move: () => void): void {
    try {
      move();
    } catch (error) {
      if (error instanceof IllegalStateTransitionError) return;
      this.ctx.warn(error);
    }
  }

  #emit<K extends keyof RedisBreakerSyncEvents & string>(type: K, fields: RedisBreakerSyncEvents[K]): void {
    if (this.ctx.events.wants(type)) this.ctx.events.emit(type, fields);
  }

  /** Stops everything: the timer, the breaker's listener; a trial in progress frees its lease. */
  detach(): void {
    if (this.mode === 'trial') void this.ctx.store.run(ABANDON, this.keys, [this.ctx.instanceId]);
    this.#detached = true;
    this.#disarm();
    this.#unsubscribe();
  }
}
