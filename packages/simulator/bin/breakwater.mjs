#!/usr/bin/env node
// The `breakwater` command (`breakwater simulate <scenario.yml>`); the code is in dist/cli.js.
import('../dist/cli.js').then((m) => m.main(process.argv.slice(2)));
