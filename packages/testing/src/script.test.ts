import { describe, expect, it } from 'vitest';
import { parseScript } from './script.js';

describe('parseScript', () => {
  it('reads letters run together', () => {
    expect(parseScript('ESSES').map((s) => s.outcome)).toEqual(['error', 'success', 'success', 'error', 'success']);
  });

  it('reads latencies, spaces, commas and lower case', () => {
    expect(parseScript('s120, E500 h e0.5')).toEqual([
      { outcome: 'success', latency: 120 },
      { outcome: 'error', latency: 500 },
      { outcome: 'hang', latency: 0 },
      { outcome: 'error', latency: 0.5 },
    ]);
  });

  it('refuses anything else with the step that is wrong', () => {
    expect(() => parseScript('SSX')).toThrow("step 3 of 'SSX' is 'X'");
    expect(() => parseScript(5 as never)).toThrow(TypeError);
  });
});
