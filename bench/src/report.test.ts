import { describe, expect, it } from 'vitest';
import { median } from './harness.js';
import {
  bestPeer,
  explained,
  exporterOverheadAtMost,
  fasterBy,
  formatBytes,
  heapBelow,
  heapDoesNotGrow,
  overheadAtMost,
  overheadBelowNs,
  overheadWithinFactorOf,
  overheadWithinNsOf,
  ownCostAtMost,
  scrapeAtMost,
  tableLines,
  withinRatio,
} from './report.js';
import type { Results, RowResult } from './results.js';

// The harness's arithmetic: what a target says of given figures (no timing here).
const row = (id: string, floorNs: number, cases: [string, 'breakwater' | 'peer', number, boolean?][]): RowResult => ({
  id,
  title: `row ${id}`,
  floor: { name: 'floor', side: 'floor', ns: floorNs },
  cases: cases.map(([name, side, ns, informational]) => ({ name, side, ns, informational })),
});
const results = (rows: RowResult[], memory: Results['memory'] = []): Results => ({ rows, memory });

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('targets', () => {
  it('own cost (rows 1a, 14a, 14b): the overhead less the measured cost of what every implementation does, against the base', () => {
    const excluded = { what: 'two clock readings', withIt: 'timed', withoutIt: 'seen' };
    const r = (policy: number, timed: number) =>
      results([
        row('1a', 50, [
          ['bw', 'breakwater', policy],
          ['ck', 'peer', 150], // +100
          ['timed', 'breakwater', timed, true],
          ['seen', 'breakwater', 75, true], // +25
        ]),
      ]);
    // +160 in all, the readings +85 (timed +110 − seen +25): +75 of its own ≤ +100
    const held = ownCostAtMost('1a', 'judged Breakwater cases', 'best peer', 1, excluded).judge(r(210, 160));
    expect(held.pass).toBe(true);
    expect(held.detail).toBe('bw: +75.0 ns (+160 ns in all); two clock readings +85.0 ns; ck: +100 ns (allowed ≤ 100 ns)');
    // cheaper readings leave more of the overhead to the policy: +160 − 40 = +120 > +100
    expect(ownCostAtMost('1a', 'judged Breakwater cases', 'best peer', 1, excluded).judge(r(210, 115)).pass).toBe(false);
    // a cost against the floor (withoutIt 'floor'), a named base, a factor
    const named = ownCostAtMost('1a', 'bw', 'ck', 0.5, { what: 'a then', withIt: 'seen', withoutIt: 'floor' });
    expect(named.judge(r(125, 160)).pass).toBe(true); // +75 − 25 = +50 ≤ 50
    expect(named.judge(r(126, 160)).pass).toBe(false);
    expect(named.judge(results([row('1a', 50, [['bw', 'breakwater', 100]])])).detail).toBe('case not measured');
  });

  it('within a base + n ns, less a measured cost (row 16a); every judged case under a fixed budget (row 16b)', () => {
    const r = (hedge: number) =>
      results([
        row('16a', 50, [
          ['hedge', 'breakwater', hedge],
          ['retry', 'breakwater', 100, true],
          ['read', 'breakwater', 90, true],
        ]),
      ]);
    const target = overheadWithinNsOf('16a', 'hedge', 'retry', 100, { what: 'one clock reading', withIt: 'read', withoutIt: 'floor' });
    // +190 in all, less the reading's +40: +150, against the retry's +50 + 100
    expect(target.judge(r(240))).toEqual({
      target: "row 16a: hedge's overhead less one clock reading ≤ retry's + 100 ns",
      pass: true,
      detail: '+150 ns (+190 ns in all; one clock reading +40.0 ns) against +50.0 ns (allowed ≤ 150 ns)',
    });
    expect(target.judge(r(241)).pass).toBe(false);
    expect(overheadWithinNsOf('16a', 'hedge', 'retry', 100, { what: 'x', withIt: 'missing', withoutIt: 'floor' }).judge(r(240)).detail).toBe(
      'case not measured',
    );
    const chaos = (a: number, b: number) =>
      results([
        row('16b', 50, [
          ['off', 'breakwater', a],
          ['off too', 'breakwater', b],
          ['rate 0', 'breakwater', 500, true],
        ]),
      ]);
    expect(overheadBelowNs('16b', 20).judge(chaos(70, 58))).toEqual({
      target: "row 16b: Breakwater's overhead ≤ 20 ns",
      pass: true,
      detail: 'off: +20.0 ns, off too: +8.0 ns (allowed ≤ 20 ns)',
    });
    expect(overheadBelowNs('16b', 20).judge(chaos(58, 71)).pass).toBe(false);
  });

  it("exporter overhead (row 1c): observed minus unobserved, ≤ the fixed budget and ≤ factor × the peer exporter's", () => {
    const names = { unobserved: 'bw', observed: 'bw+exp', peerBare: 'op', peerObserved: ['op + op-exp', 'op + cheap'] };
    const r = (observed: number, peerObserved: number) =>
      results([
        row('1c', 40, [
          ['bw', 'breakwater', 160, true],
          ['bw+exp', 'breakwater', observed],
          ['op', 'peer', 400],
          ['op + op-exp', 'peer', peerObserved],
          ['op + cheap', 'peer', peerObserved + 100],
        ]),
      ]);
    expect(exporterOverheadAtMost('1c', names, 100, 0.5).judge(r(175, 2000)).pass).toBe(true); // +15 <= min(100, 800)
    expect(exporterOverheadAtMost('1c', names, 100, 0.5).judge(r(275, 2000)).pass).toBe(false); // +115 > 100
    expect(exporterOverheadAtMost('1c', names, 100, 0.5).judge(r(200, 460)).pass).toBe(false); // +40 > 0.5 × 60
    expect(exporterOverheadAtMost('1c', names, 100, 0.5).judge(r(175, 2000)).detail).toContain('allowed ≤ 100 ns');
  });

  it('scrape (row 10): time and allocation per 1 000 breakers', () => {
    const scrape = (ms: number, mb: number): Results => ({
      rows: [],
      memory: [],
      scrape: [{ id: '10', name: 's', breakers: 10_000, ms, allocatedBytes: mb * 1024 * 1024, textBytes: 1, collectMs: 1, collectBytes: 1, series: 1 }],
    });
    expect(scrapeAtMost('10', 500, 160 * 1024 * 1024).judge(scrape(4_000, 1_400)).pass).toBe(true);
    expect(scrapeAtMost('10', 500, 160 * 1024 * 1024).judge(scrape(6_000, 1_400)).pass).toBe(false);
    expect(scrapeAtMost('10', 500, 160 * 1024 * 1024).judge(scrape(4_000, 1_700)).pass).toBe(false);
    expect(() => scrapeAtMost('10', 500, 1).judge({ rows: [], memory: [] })).toThrow();
  });

  it('overhead: judged on ns over the floor against the fastest peer', () => {
    const r = row('1', 50, [
      ['bw', 'breakwater', 150],
      ['slow peer', 'peer', 400],
      ['fast peer', 'peer', 160],
    ]);
    expect(bestPeer(r)?.name).toBe('fast peer');
    expect(overheadAtMost('1', 1).judge(results([r])).pass).toBe(true); // +100 <= +110
    expect(overheadAtMost('1', 0.5).judge(results([r])).pass).toBe(false); // +100 > +55
    expect(overheadAtMost('1', 0.5).judge(results([r])).detail).toContain('allowed ≤ 55.0 ns');
  });

  it('overhead: every judged Breakwater case must hold; informational ones are not judged', () => {
    const r = row('2', 100, [
      ['fast option', 'breakwater', 200],
      ['default', 'breakwater', 5000, true],
      ['peer', 'peer', 400],
    ]);
    expect(overheadAtMost('2', 0.5).judge(results([r])).pass).toBe(true);
    const both = row('2', 100, [
      ['a', 'breakwater', 200],
      ['b', 'breakwater', 300],
      ['peer', 'peer', 400],
    ]);
    expect(overheadAtMost('2', 0.5).judge(results([both])).pass).toBe(false); // b: +200 > +150
  });

  it('overhead: a figure under the floor counts as no overhead', () => {
    const r = row('3', 100, [
      ['bw', 'breakwater', 95],
      ['peer', 'peer', 100],
    ]);
    expect(overheadAtMost('3', 0.5).judge(results([r])).pass).toBe(true);
  });

  it('faster by: the best peer over Breakwater, in ns per operation', () => {
    const r = row('6', 50, [
      ['bw', 'breakwater', 1000],
      ['peer', 'peer', 8000],
    ]);
    expect(fasterBy('6', 8).judge(results([r])).pass).toBe(true);
    expect(fasterBy('6', 8.1).judge(results([r])).pass).toBe(false);
  });

  it('within ratio: one Breakwater case against another, across rows', () => {
    const a = row('3a', 300, [['small', 'breakwater', 600]]);
    const b = row('3b', 300, [['large', 'breakwater', 780]]);
    expect(withinRatio('3b', 'large', '3a', 'small', 1.3).judge(results([a, b])).pass).toBe(true);
    expect(withinRatio('3b', 'large', '3a', 'small', 1.29).judge(results([a, b])).pass).toBe(false);
  });

  it('overhead within a factor of a reference case of the same row (rows 14a, 14b): both over the floor', () => {
    const r = (adaptiveNs: number) =>
      results([
        row('14a', 50, [
          ['adaptive', 'breakwater', adaptiveNs],
          ['bulkhead', 'breakwater', 80, true],
        ]),
      ]);
    expect(overheadWithinFactorOf('14a', 'adaptive', 'bulkhead', 2).judge(r(110))).toEqual({
      target: "row 14a: adaptive's overhead ≤ 2 × bulkhead's",
      pass: true,
      detail: '+60.0 ns against +30.0 ns (allowed ≤ 60.0 ns)',
    });
    expect(overheadWithinFactorOf('14a', 'adaptive', 'bulkhead', 2).judge(r(111)).pass).toBe(false);
    expect(overheadWithinFactorOf('14a', 'adaptive', 'bulkhead', 2).judge(r(40)).pass).toBe(true); // under the floor: no overhead
    expect(overheadWithinFactorOf('14a', 'adaptive', 'missing', 2).judge(r(110))).toMatchObject({ pass: false, detail: 'case not measured' });
    expect(() => overheadWithinFactorOf('14b', 'adaptive', 'bulkhead', 2).judge(r(110))).toThrow("no row '14b' in the results");
  });

  it('heap: an absolute limit, and no growth between two figures beyond a slack', () => {
    const memory = [
      { id: 'one', name: 'one', bytes: 2000 },
      { id: 'many', name: 'many', bytes: 2900 },
    ];
    expect(heapBelow('one', 4096).judge(results([], memory)).pass).toBe(true);
    expect(heapBelow('many', 2048).judge(results([], memory)).pass).toBe(false);
    expect(heapDoesNotGrow('many', 'one', 1024).judge(results([], memory)).pass).toBe(true);
    expect(heapDoesNotGrow('many', 'one', 512).judge(results([], memory)).pass).toBe(false);
  });

  it('explained: a missed verdict carries the reason, a held one does not', () => {
    const r = row('4', 50, [
      ['bw', 'breakwater', 100],
      ['peer', 'peer', 120],
    ]);
    expect(explained(overheadAtMost('4', 0.5), 'because').judge(results([r])).note).toBe('because');
    expect(explained(overheadAtMost('4', 1), 'because').judge(results([r])).note).toBeUndefined();
  });

  it('a target on a row that was not run throws (the runner leaves it out)', () => {
    expect(() => overheadAtMost('9z', 1).judge(results([]))).toThrow("no row '9z'");
  });
});

describe('table', () => {
  it('gives ns/op, × floor and × best peer for the floor and every case', () => {
    const lines = tableLines(
      row('1', 50, [
        ['Breakwater', 'breakwater', 150],
        ['peer', 'peer', 200],
      ]),
    );
    expect(lines).toEqual([
      { name: 'floor (floor)', ns: '50.0', xFloor: '1.00', xBestPeer: '0.25' },
      { name: '**Breakwater**', ns: '150', xFloor: '3.00', xBestPeer: '0.75' },
      { name: 'peer', ns: '200', xFloor: '4.00', xBestPeer: '1.00' },
    ]);
  });

  it('formats bytes in B, KB and MB', () => {
    expect(formatBytes(900)).toBe('900 B');
    expect(formatBytes(2048)).toBe('2.0 KB');
    expect(formatBytes(16.25 * 1024 * 1024)).toBe('16.3 MB');
  });
});
