// `pnpm simulate <scenario.yml>` from the repository: the command on the sources (tsx), as
// bin/breakwater.mjs runs it on the build.
import { main } from './cli.js';

await main(process.argv.slice(2));
