#!/usr/bin/env bash
# Runs every test: unit tests, then the interop suite against real daemons in network
# namespaces (as root). Installs what it needs first, so it works on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci
bash scripts/deps.sh
npx tsc -p tsconfig.json --noEmit
npx biome check src test bench frr-interop
npx vitest run --project unit
if [ "$(id -u)" = 0 ]; then
  npx vitest run --project interop --passWithNoTests
else
  echo "interop: needs root (network namespaces); run npm test as root" >&2
  exit 1
fi
