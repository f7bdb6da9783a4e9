#!/usr/bin/env bash
# Runs every test: unit tests, then the interop suite against real daemons in network
# namespaces (as root). Installs what it needs first, so it works on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci
bash scripts/deps.sh
# Today's daemons (OVN 25.03, FRR 10.3, BIRD 3.1, GoBGP 3.36) for the interop tests: built once per machine.
[ "$(id -u)" = 0 ] && bash scripts/trixie-root.sh ensure >/dev/null
npx tsc -p tsconfig.json --noEmit
npx biome check src test bench frr-interop

if [ "$(id -u)" != 0 ]; then
  echo "interop tests need root (network namespaces): run npm test as root" >&2
  exit 1
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json="$out/unit.json" || status=1
npx vitest run --project interop --reporter=default --reporter=json --outputFile.json="$out/interop.json" || status=1

# One closing line with the totals of both runs.
node -e '
  let passed = 0, failed = 0, skipped = 0;
  for (const f of process.argv.slice(1)) {
    try {
      const r = JSON.parse(require("fs").readFileSync(f, "utf8"));
      passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
    } catch { failed += 1; }
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
' "$out/unit.json" "$out/interop.json"
exit $status
