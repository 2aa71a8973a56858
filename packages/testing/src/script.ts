/** One step of a scripted backend: succeed, fail or hang, after `latency` ms on the clock. */
export interface ScriptStep {
  readonly outcome: 'success' | 'error' | 'hang';
  /** Milliseconds before the step settles (a hang never settles). Default 0. */
  readonly latency: number;
}

const TOKEN = /^([SEH])(\d+(?:\.\d+)?)?$/;

/**
 * Reads a script: `S` succeed, `E` fail, `H` hang (settles only when the call's signal aborts),
 * each optionally followed by a latency in ms. Letters may run together (`'ESSES'`) or be
 * separated by spaces or commas (`'S120 S80 E500 H'`).
 *
 * @example
 * ```ts
 * parseScript('ES200');
 * // [{ outcome: 'error', latency: 0 }, { outcome: 'success', latency: 200 }]
 * ```
 */
export function parseScript(script: string): ScriptStep[] {
  if (typeof script !== 'string') throw new TypeError(`parseScript: a script must be a string like 'ESSES' or 'S120 E500 H', got ${typeof script}`);
  const tokens = script.toUpperCase().match(/[SEH]\d*(?:\.\d+)?|[^\s,]/g) ?? [];
  return tokens.map((token, i) => {
    const m = TOKEN.exec(token);
    if (m === null)
      throw new TypeError(
        `parseScript: step ${i + 1} of '${script}' is '${token}'; use S (success), E (error) or H (hang), each optionally followed by a latency in ms`,
      );
    const outcome = m[1] === 'S' ? 'success' : m[1] === 'E' ? 'error' : 'hang';
    return { outcome, latency: m[2] === undefined ? 0 : Number(m[2]) };
  });
}
