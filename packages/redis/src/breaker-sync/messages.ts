// The messages of the fleet channel, as the scripts publish them (cjson). A message that does not
// parse, or does not have this shape, is ignored: the channel is Redis's, anyone could publish on it.

/** A state change of the fleet, or an opening below quorum. `ver` orders state changes. */
export type FleetMessage =
  | { readonly t: 'opened'; readonly from: string; readonly count: number; readonly ver: number }
  | { readonly t: 'open'; readonly from: string; readonly remaining: number; readonly ver: number; readonly count: number }
  | { readonly t: 'closed'; readonly from: string; readonly ver: number }
  | { readonly t: 'override'; readonly state: 'FORCED_OPEN' | 'DISABLED' | ''; readonly ver: number };

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function parseMessage(raw: string): FleetMessage | undefined {
  let m: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    m = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!num(m['ver'])) return undefined;
  switch (m['t']) {
    case 'opened':
      return typeof m['from'] === 'string' && num(m['count']) ? (m as FleetMessage) : undefined;
    case 'open':
      return typeof m['from'] === 'string' && num(m['remaining']) && m['remaining'] >= 0 ? (m as FleetMessage) : undefined;
    case 'closed':
      return typeof m['from'] === 'string' ? (m as FleetMessage) : undefined;
    case 'override':
      return m['state'] === 'FORCED_OPEN' || m['state'] === 'DISABLED' || m['state'] === '' ? (m as FleetMessage) : undefined;
    default:
      return undefined;
  }
}
