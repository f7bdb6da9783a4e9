#!/usr/bin/env bash
# Installs the Debian packages the lab and the interop tests need, when any is missing.
# Services are never started by the install: the lab starts its own daemons in namespaces.
# systemd brings systemd-analyze (the service unit's check); python3 is the sd_notify listener of
# the notify tests. socat and netcat-openbsd are the installed command's unix-socket connectors;
# gawk and busybox give its tests the other awks (mawk is Debian's default).
set -euo pipefail

PKGS=(frr gobgpd bird2 tshark pmacct ovn-central ovn-host openvswitch-common openvswitch-switch iproute2 iputils-ping procps openssl time systemd python3 bgpdump socat netcat-openbsd gawk busybox)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "deps: missing Debian packages (${missing[*]}) and not root: install them first" >&2
  exit 1
fi

echo "deps: installing ${missing[*]}" >&2
guard=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  # Keep package scripts from starting system-wide daemons outside our namespaces.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
  guard=1
fi
trap '[ -n "$guard" ] && rm -f /usr/sbin/policy-rc.d' EXIT
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
