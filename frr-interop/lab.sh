#!/usr/bin/env bash
# The demo lab: speaker namespace (AS 65000) with FRR (AS 65001), GoBGP (AS 65002) and BIRD (AS 65003)
# peers in their own namespaces, each peering with the speaker over IPv4 and IPv6.
#
#   sudo frr-interop/lab.sh up     [--id ID]   build it (first removing leftovers of a crashed lab with that id)
#   sudo frr-interop/lab.sh down   [--id ID]   stop its processes, delete its namespaces and files
#   sudo frr-interop/lab.sh status [--id ID]   each daemon's neighbors and their state
#
# Namespaces are obs-<ID>-speaker, obs-<ID>-frr, …  (ID defaults to "lab"); files in /tmp/obs-lab-<ID>.
set -euo pipefail

cd "$(dirname "$0")/.."

usage() { sed -n '2,9p' "$0" >&2; }

if [ "$(id -u)" != 0 ]; then
  echo "lab.sh: run as root (it creates network namespaces and starts daemons in them)" >&2
  exit 1
fi

case "${1:-}" in
  up)
    bash scripts/deps.sh
    exec npx tsx frr-interop/lab/cli.ts "$@"
    ;;
  down | status)
    exec npx tsx frr-interop/lab/cli.ts "$@"
    ;;
  *)
    usage
    exit 2
    ;;
esac
