import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientScriptModule, GENERATED } from '../scripts/bundle-client.js';

// The report's script is src/html/client/main.ts; the page inlines its bundle, checked in as
// src/html/client-script.generated.ts (the build regenerates it). This fails when they drift.
describe('the bundled client script', () => {
  it('is what src/html/client/main.ts and page.css bundle to (run `pnpm --filter @breakwater/simulator run bundle-client`)', async () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(await clientScriptModule());
  });
});
