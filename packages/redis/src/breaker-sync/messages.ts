// The messages of the fleet channel, as the scripts publish them (cjson). The channel is Redis's:
// anyone can PUBLISH on it, so a message is only a notice. An opening below quorum is told as
// such (`peerOpened`, an event that moves nothing); a state change (`open`, `closed`, `override`)
// is read as "the fleet state changed, at version `ver`": the instance re-reads the state from
// Redis and applies what the store says, never what the message says. A message that does not
// parse, or does not have this shape, is ignored.

/** An opening below quorum, or a notice that the fleet state changed (`from`: the instance that changed it, if one did). */
export type FleetMessage =
  | { readonly t: 'opened'; readonly from: string; readonly count: number; readonly ver: number }
  | { readonly t: 'changed'; readonly from: string | undefined; readonly ver: number };

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
  const ver = m['ver'];
  if (!num(ver)) return undefined;
  const from = typeof m['from'] === 'string' ? m['from'] : undefined;
  switch (m['t']) {
    case 'opened':
      return from !== undefined && num(m['count']) ? { t: 'opened', from, count: m['count'], ver } : undefined;
    case 'open':
    case 'closed':
    case 'override':
      return { t: 'changed', from, ver };
    default:
      return undefined;
  }
}
