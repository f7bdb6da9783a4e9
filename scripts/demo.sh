#!/usr/bin/env bash
# The main job of a fresh checkout: build the speaker, show its help, and round-trip every
# BGP message captured from FRR, GoBGP and BIRD through our codec.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci
npm run --silent build
bin="node dist/src/cli/main.js"
$bin help
echo
echo "== Decoding and re-encoding sessions captured from FRR 8.4, GoBGP 3.10 and BIRD 2 =="
$bin roundtrip fixtures/bgp
echo
echo "== One session, message by message (FRR <-> GoBGP, 4-octet ASes, add-path) =="
$bin roundtrip -v fixtures/bgp/frr-gobgp-ipv4-ebgp-as4.json | head -n 20
