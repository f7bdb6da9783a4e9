#!/usr/bin/env bash
# A Debian trixie root for the lab: OVN 25.03, Open vSwitch 3.5, FRR 10.3, BIRD 3.1 and GoBGP 3.36
# run from it inside the lab's network namespaces (`ip netns exec NS chroot ROOT CMD`), beside
# the host's Debian 12 daemons. Mixing trixie packages into the host would pull a new libc, so
# they live in a root of their own, built once with debootstrap and reused.
#
#   scripts/trixie-root.sh ensure   build the root when it is missing or lacks a package; print its path
#   scripts/trixie-root.sh path     print where the root is (or would be)
#   scripts/trixie-root.sh remove   delete it
#
# The root lives outside the checkout (OBS_TRIXIE_ROOT, default /var/cache/ovn-bgp-speaker/trixie)
# so every clone and every CI run on a machine shares it. The Debian mirror is the host's own,
# read from its apt sources at run time.
set -euo pipefail

ROOT=${OBS_TRIXIE_ROOT:-/var/cache/ovn-bgp-speaker/trixie}
SUITE=trixie
# What the lab runs from the root. bird3 is BIRD 3.x (bird2 2.17 would replace it: one /usr/sbin/bird).
PKGS=(frr bird3 gobgpd ovn-central ovn-host openvswitch-switch openvswitch-common iproute2 procps)
STAMP=.obs-packages

log() { echo "trixie-root: $*" >&2; }

# The first Debian mirror of the host's apt sources (deb822 or one-line form), never a fixed address.
host_mirror() {
  local m=""
  if compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null; then
    m=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources)
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list)
  fi
  [ -n "$m" ] || { log "no Debian mirror in the host's apt sources"; exit 1; }
  echo "$m"
}

host_install() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" && return 0
  log "installing $1 on the host"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$1" >&2
}

# Runs a command in the root with its own /proc, unmounted again however the command ends.
in_root() {
  local r=$1; shift
  mount -t proc proc "$r/proc"
  local status=0
  chroot "$r" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@" >&2 || status=$?
  umount "$r/proc"
  return $status
}

complete() {
  [ -f "$ROOT/$STAMP" ] || return 1
  local p
  for p in "${PKGS[@]}"; do grep -qx "$p" "$ROOT/$STAMP" || return 1; done
}

build() {
  host_install debootstrap
  local mirror work
  mirror=$(host_mirror)
  mkdir -p "$(dirname "$ROOT")"
  work="$ROOT.build.$$"
  rm -rf "$work"
  trap 'umount "$work/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
  log "debootstrap $SUITE into $work (a few minutes, once per machine)"
  debootstrap --variant=minbase "$SUITE" "$work" "$mirror" >&2
  # Package scripts must not start daemons: the lab starts its own, in namespaces.
  printf '#!/bin/sh\nexit 101\n' > "$work/usr/sbin/policy-rc.d"
  chmod 755 "$work/usr/sbin/policy-rc.d"
  in_root "$work" apt-get install -y -q --no-install-recommends "${PKGS[@]}"
  in_root "$work" apt-get clean
  printf '%s\n' "${PKGS[@]}" > "$work/$STAMP"
  rm -rf "$ROOT"
  mv "$work" "$ROOT"
  trap - EXIT
  log "ready: $ROOT"
}

# A root from an earlier run that lacks a package now listed gets it, without a new debootstrap.
top_up() {
  local missing=() p
  for p in "${PKGS[@]}"; do grep -qx "$p" "$ROOT/$STAMP" 2>/dev/null || missing+=("$p"); done
  log "adding ${missing[*]} to $ROOT"
  in_root "$ROOT" apt-get update -q
  in_root "$ROOT" apt-get install -y -q --no-install-recommends "${missing[@]}"
  in_root "$ROOT" apt-get clean
  printf '%s\n' "${PKGS[@]}" > "$ROOT/$STAMP"
}

case "${1:-ensure}" in
path) echo "$ROOT" ;;
ensure)
  if ! complete; then
    [ "$(id -u)" = 0 ] || { log "building the root needs root"; exit 1; }
    mkdir -p "$(dirname "$ROOT")"
    # One build at a time: two test runs on one machine share the root.
    exec 9>"$ROOT.lock"
    flock -w 1200 9 || { log "another build holds $ROOT.lock"; exit 1; }
    if ! complete; then
      if [ -x "$ROOT/usr/bin/apt-get" ] && [ -f "$ROOT/$STAMP" ]; then top_up; else build; fi
    fi
  fi
  echo "$ROOT" ;;
remove)
  if grep -q " $ROOT/" /proc/mounts; then log "something is still mounted below $ROOT"; exit 1; fi
  rm -rf "$ROOT" "$ROOT.lock" ;;
*) echo "usage: $0 ensure|path|remove" >&2; exit 2 ;;
esac
