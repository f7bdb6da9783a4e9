#!/usr/bin/env bash
# The main demo: a small cloud in real OVN (NB and SB ovsdb-server, ovn-northd, ovn-controller
# on userspace Open vSwitch), our speaker publishing its routes, and FRR as the upstream router.
#
#   bash scripts/demo-ovn.sh          build it, show what FRR learned from OVN, make one live
#                                     change; leave it running (the guide at the end says what to try)
#   bash scripts/demo-ovn.sh --once   the same, then remove everything (CI=true implies --once)
#   bash scripts/demo-ovn.sh down     remove everything a run left: its processes (by recorded
#                                     PID), its namespaces, its files
#   bash scripts/demo-ovn.sh --ovn25  the same story on OVN 25.03's own dynamic routing: OVN
#                                     computes what it advertises, ovn-controller fills each
#                                     chassis' routing table, our speaker on each chassis takes
#                                     FRR's seat (FRR 10.3 as the fabric; from a Debian trixie
#                                     root built once); --once and down work with it too
#
# Needs root (network namespaces). Files in /tmp/obs-ovn-demo, namespaces obs-ovn-*; OVN is
# reached over unix sockets only, so no TCP port on the host is taken. Every wait is bounded.
# DEMO_LAB and DEMO_NS_PREFIX name another directory and namespace prefix, so that a second
# demo can run beside the first.
set -euo pipefail
cd "$(dirname "$0")/.."

LAB=${DEMO_LAB:-/tmp/obs-ovn-demo}
CHASSIS_NS_PREFIX=${DEMO_NS_PREFIX:-obs-ovn-}
NS_FRR=${CHASSIS_NS_PREFIX}frr
NS_SPEAKER=${CHASSIS_NS_PREFIX}speaker
# Every namespace the demo may make; `down` deletes those that exist.
NAMESPACES=("$NS_FRR" "$NS_SPEAKER" "${CHASSIS_NS_PREFIX}hv1" "${CHASSIS_NS_PREFIX}hv2" "${CHASSIS_NS_PREFIX}nodea")
WAIT_S=30          # bound of every wait for a daemon or a database
STOP_GRACE_S=5     # SIGTERM, then SIGKILL after this long (FRR takes about 2 s to exit)
ROUTES_WAIT_S=60   # sessions up and every OVN route at FRR

# The provider network "physnet1" is the veth between FRR and the speaker. Every chassis (its
# Encap IP) and every OVN gateway port has an address on it, so the speaker can hand FRR the
# chassis itself as next hop (RFC 4271 5.1.3, third-party next hop) instead of its own address.
PROVIDER4=198.18.10 PROVIDER6=2001:db8:10
FRR_AS=65001 FRR4=$PROVIDER4.1 FRR6=$PROVIDER6::1
SPEAKER_AS=65000 SPEAKER4=$PROVIDER4.2 SPEAKER6=$PROVIDER6::2
# ovn-kubernetes names a node's chassis by its system-id, a UUID.
NODEA_ID=5f3c2a1e-8d4b-4e6a-9c7f-0b1d2e3f4a5b
# Chassis: name, host part on the provider network, kind (real: ovn-controller; fake: rows only).
CHASSIS=(
  "gw1 11 fake"
  "gw2 12 fake"
  "hv1 21 real"
  "hv2 22 real"
  "$NODEA_ID 31 real"
)
# The FIP the live change adds.
LIVE_FIP=198.18.64.30

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; }
die() {
  echo "demo-ovn: $*" >&2
  exit 1
}
say() { printf '\n== %s ==\n' "$*"; }

once=0
command=up
ovn25=0
for arg in "$@"; do
  case "$arg" in
    --once) once=1 ;;
    --ovn25) ovn25=1 ;;
    down) command=down ;;
    up) command=up ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      echo "demo-ovn: unknown argument $arg" >&2
      usage
      exit 2
      ;;
  esac
done
case "${CI:-}" in true | 1) once=1 ;; esac
[ "$(id -u)" = 0 ] || die "run as root: the demo creates network namespaces and starts daemons in them"

if [ "$ovn25" = 1 ]; then
  [ -d node_modules ] || npm ci
  if [ "$command" = down ]; then exec npx tsx frr-interop/ovn-demo/dr.ts down; fi
  bash scripts/deps.sh
  bash scripts/trixie-root.sh ensure >/dev/null
  npm run build >/dev/null
  args=()
  [ "$once" = 1 ] && args+=(--once)
  exec npx tsx frr-interop/ovn-demo/dr.ts "${args[@]}"
fi

# --- processes: recorded when started, stopped by PID ------------------------------------------

# Start time of a process in clock ticks since boot (field 22 of /proc/PID/stat), so that
# `down` never signals a PID the kernel has given to someone else since.
started_at() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  set -- $stat
  echo "${20}"
}

# Alive means present and not a zombie: PID 1 here may reap late, so `kill -0` is not enough.
alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

record() { # NAME PID
  local start
  start=$(started_at "$2") || die "$1 (PID $2) exited at once; see the logs in $LAB"
  echo "$1 $2 $start" >>"$LAB/pids"
}

# PID from an OVS/OVN pidfile, waiting for the file (bounded).
pid_of() {
  local end=$((SECONDS + WAIT_S))
  until [ -s "$1" ]; do
    ((SECONDS < end)) || die "no pidfile $1 after ${WAIT_S}s"
    sleep 0.05
  done
  cat "$1"
}

# Stops PIDs: SIGTERM to all, one bounded wait, SIGKILL to what is left.
stop_pids() {
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local end=$((SECONDS + STOP_GRACE_S)) pid left
  while :; do
    left=()
    for pid in "$@"; do alive "$pid" && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && return 0
    ((SECONDS < end)) || break
    sleep 0.1
  done
  kill -KILL "${left[@]}" 2>/dev/null || true
  end=$((SECONDS + 2))
  for pid in "${left[@]}"; do
    while alive "$pid" && ((SECONDS < end)); do sleep 0.05; done
  done
}

ns_exists() { [ -e "/run/netns/$1" ]; }

# Removes what a run made: recorded processes (checked against their start time), anything
# still running inside the demo's namespaces, the namespaces, the lab dir.
teardown() {
  local pids=() name pid start ns n=0
  if [ -f "$LAB/pids" ]; then
    while read -r name pid start; do
      [ "$(started_at "$pid" 2>/dev/null)" = "$start" ] && alive "$pid" && pids+=("$pid")
    done <"$LAB/pids"
  fi
  for ns in "${NAMESPACES[@]}"; do
    if ns_exists "$ns"; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do
        [[ " ${pids[*]} " == *" $pid "* ]] || pids+=("$pid")
      done
    fi
  done
  stop_pids "${pids[@]}"
  for ns in "${NAMESPACES[@]}"; do
    if ns_exists "$ns"; then
      ip netns del "$ns"
      n=$((n + 1))
    fi
  done
  rm -rf "$LAB"
  echo "stopped ${#pids[@]} process(es), deleted $n namespace(s), removed $LAB"
}

leftovers() {
  [ -e "$LAB" ] && return 0
  local ns
  for ns in "${NAMESPACES[@]}"; do ns_exists "$ns" && return 0; done
  return 1
}

if [ "$command" = down ]; then
  if leftovers; then teardown; else echo "nothing to remove: no $LAB, no ${CHASSIS_NS_PREFIX}* namespaces"; fi
  exit 0
fi

# --- waits ---------------------------------------------------------------------------------------

wait_for() { # SECONDS WHAT COMMAND...: polls COMMAND every 0.1 s
  local s=$1 what=$2
  shift 2
  local end=$((SECONDS + s))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || die "timed out after ${s}s waiting for $what (logs in $LAB)"
    sleep 0.1
  done
}

ms_now() { echo $(($(date +%s%N) / 1000000)); }
elapsed() {
  local ms=$(($(ms_now) - t_start))
  echo "$((ms / 1000)).$(((ms % 1000) / 100)) s"
}

# --- install and build ---------------------------------------------------------------------------

[ -d node_modules ] || npm ci
bash scripts/deps.sh
npm run --silent build
t_start=$(ms_now)

if leftovers; then
  echo "removing what an earlier run left:"
  teardown
fi
mkdir -p "$LAB"
chmod 755 "$LAB"
: >"$LAB/pids"
cleanup_on_failure() {
  local status=$?
  if [ $status -ne 0 ] && [ "$once" = 1 ]; then
    echo "demo-ovn: failed (status $status); removing everything" >&2
    # The logs go with the lab: what they say of the failure goes to stderr first.
    for log in "$LAB/speaker.log" "$LAB/frr/bgpd.log"; do
      [ -f "$log" ] || continue
      echo "--- last lines of $log" >&2
      tail -n 80 "$log" >&2 || true
    done
    teardown >&2 || true
  elif [ $status -ne 0 ]; then
    echo "demo-ovn: failed (status $status); logs are in $LAB, remove it all with: bash scripts/demo-ovn.sh down" >&2
  fi
}
trap cleanup_on_failure EXIT
# Ctrl-C ends the demo even when the child it interrupts (npx, tsx) exits as if nothing happened.
trap 'exit 130' INT
trap 'exit 143' TERM

say "The demo: OVN routes published by the speaker to FRR (details in docs/demo.md)"
row() { printf "  %-${1}s%-${2}s%-${3}s%s\n" "${@:4}"; }
row 36 36 0 "FRR, the upstream router" "ovn-bgp-speaker" "" "OVN central"
row 36 36 0 "AS $FRR_AS, ns $NS_FRR" "AS $SPEAKER_AS, ns $NS_SPEAKER" "" "NB + SB ovsdb-server, ovn-northd"
row 17 19 36 "$FRR4" "<=== BGP ===>" "$SPEAKER4" "unix sockets in $LAB"
row 17 19 17 "$FRR6" "<=== BGP ===>" "$SPEAKER6" "<=== OVSDB monitors NB, SB"
row 0 0 0 "" "" "" "'--- physnet1: $PROVIDER4.0/24, $PROVIDER6::/64 (a veth) ---'"
echo "  Also on physnet1, in OVN's data: the chassis gw1 .11, gw2 .12 (gateways), hv1 .21, hv2 .22"
echo "  (hypervisors), node-a .31 (a Kubernetes node); router1's gateway port .100"

nb() { ovn-nbctl --db="unix:$LAB/nb.sock" --timeout=10 "$@"; }
sb() { ovn-sbctl --db="unix:$LAB/sb.sock" --timeout=10 "$@"; }

# --- OVN central: NB and SB ovsdb-server, ovn-northd ---------------------------------------------

say "OVN central: Northbound and Southbound ovsdb-server, ovn-northd (OVN $(ovn-northd --version | sed -n '1s/.* //p'))"
for db in nb sb; do
  ovsdb-tool create "$LAB/$db.db" "/usr/share/ovn/ovn-$db.ovsschema"
  ovsdb-server --detach --no-chdir --pidfile="$LAB/$db.pid" --log-file="$LAB/$db.log" \
    --unixctl="$LAB/$db.ctl" --remote="punix:$LAB/$db.sock" "$LAB/$db.db" 2>>"$LAB/stderr.log"
  record "ovsdb-server-$db" "$(pid_of "$LAB/$db.pid")"
done
nb init
sb init
ovn-northd --detach --no-chdir --pidfile="$LAB/northd.pid" --log-file="$LAB/northd.log" \
  --unixctl="$LAB/northd.ctl" --ovnnb-db="unix:$LAB/nb.sock" --ovnsb-db="unix:$LAB/sb.sock" 2>>"$LAB/stderr.log"
record ovn-northd "$(pid_of "$LAB/northd.pid")"
northd_active() { ovn-appctl --timeout=5 -t "$LAB/northd.ctl" status | grep -q active; }
wait_for "$WAIT_S" "ovn-northd to become active" northd_active
echo "NB unix:$LAB/nb.sock, SB unix:$LAB/sb.sock, ovn-northd active ($(elapsed))"

# --- chassis -------------------------------------------------------------------------------------

# A real chassis: its own namespace with ovsdb-server, ovs-vswitchd (userspace datapath
# "netdev": its bridges and ports are tap devices inside that namespace) and ovn-controller,
# which registers the Chassis and claims the ports plugged into br-int.
in_chassis() { # DIR NS COMMAND...
  local dir=$1 ns=$2
  shift 2
  env OVS_RUNDIR="$dir" OVS_LOGDIR="$dir" OVS_DBDIR="$dir" OVN_RUNDIR="$dir" OVN_LOGDIR="$dir" \
    OVN_DBDIR="$dir" ip netns exec "$ns" "$@" 2>>"$LAB/stderr.log"
}
vsctl() { # CHASSIS_DIR ARGS...: ovs-vsctl of the chassis in $LAB/CHASSIS_DIR
  local dir=$LAB/$1
  shift
  ovs-vsctl --db="unix:$dir/db.sock" --timeout=10 "$@"
}
# The namespace of a chassis: obs-ovn-<name>, the node UUID shortened to "nodea".
chassis_ns() { if [ "$1" = "$NODEA_ID" ]; then echo "${CHASSIS_NS_PREFIX}nodea"; else echo "$CHASSIS_NS_PREFIX$1"; fi; }
chassis_dir() { if [ "$1" = "$NODEA_ID" ]; then echo "$LAB/nodea"; else echo "$LAB/$1"; fi; }

# Without /dev/net/tun (no tap devices), OVS's dummy datapath serves ovn-controller as well.
if [ -c /dev/net/tun ]; then
  DATAPATH=netdev
  VSWITCHD_OPTS=()
else
  DATAPATH=dummy
  VSWITCHD_OPTS=(--enable-dummy=override)
fi

start_real_chassis() { # NAME ENCAP_IP HOSTNAME
  local name=$1 ip=$2 host=$3 ns dir
  ns=$(chassis_ns "$name")
  dir=$(chassis_dir "$name")
  mkdir -p "$dir"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ovsdb-tool create "$dir/conf.db" /usr/share/openvswitch/vswitch.ovsschema
  in_chassis "$dir" "$ns" ovsdb-server --detach --no-chdir --pidfile="$dir/ovsdb-server.pid" \
    --log-file="$dir/ovsdb-server.log" --unixctl="$dir/ovsdb-server.ctl" --remote="punix:$dir/db.sock" "$dir/conf.db"
  record "$host/ovsdb-server" "$(pid_of "$dir/ovsdb-server.pid")"
  ovs-vsctl --db="unix:$dir/db.sock" --timeout=10 --no-wait init
  in_chassis "$dir" "$ns" ovs-vswitchd --detach --no-chdir --pidfile="$dir/ovs-vswitchd.pid" \
    --log-file="$dir/ovs-vswitchd.log" --unixctl="$dir/ovs-vswitchd.ctl" "${VSWITCHD_OPTS[@]}" "unix:$dir/db.sock"
  record "$host/ovs-vswitchd" "$(pid_of "$dir/ovs-vswitchd.pid")"
  ovs-vsctl --db="unix:$dir/db.sock" --timeout=10 \
    -- set Open_vSwitch . external-ids:system-id="$name" external-ids:hostname="$host" \
    external-ids:ovn-remote="unix:$LAB/sb.sock" external-ids:ovn-encap-type=geneve \
    external-ids:ovn-encap-ip="$ip" external-ids:ovn-bridge-mappings=physnet1:br-ex \
    -- add-br br-int -- set Bridge br-int fail-mode=secure other-config:disable-in-band=true datapath_type="$DATAPATH" \
    -- add-br br-ex -- set Bridge br-ex datapath_type="$DATAPATH"
  # ovn-controller 23.03 has no --unixctl: its socket is $OVN_RUNDIR/ovn-controller.<pid>.ctl.
  in_chassis "$dir" "$ns" ovn-controller --detach --no-chdir --pidfile="$dir/ovn-controller.pid" \
    --log-file="$dir/ovn-controller.log" "unix:$dir/db.sock"
  record "$host/ovn-controller" "$(pid_of "$dir/ovn-controller.pid")"
}

registered() { sb --bare --columns=name find Chassis_Private "name=\"$1\"" | grep -q .; }

say "Chassis: ovn-controller on userspace Open vSwitch where a real one can do the job"
for c in "${CHASSIS[@]}"; do
  read -r name host kind <<<"$c"
  hostname=$name
  [ "$name" = "$NODEA_ID" ] && hostname=node-a
  if [ "$kind" = real ]; then
    start_real_chassis "$name" "$PROVIDER4.$host" "$hostname"
  else
    # Gateway nodes: an HA gateway with two chassis is only claimed by ovn-controller once BFD
    # sees the peer tunnels up, which takes a data plane this demo does not have. So gw1 and
    # gw2 are Chassis rows (ovn-sbctl chassis-add), and the active one is bound below.
    sb chassis-add "$name" geneve "$PROVIDER4.$host" \
      -- set Chassis "$name" hostname="$hostname" other_config:ovn-bridge-mappings=physnet1:br-ex \
      other_config:ovn-cms-options=enable-chassis-as-gw
  fi
done
for c in "${CHASSIS[@]}"; do
  read -r name host kind <<<"$c"
  if [ "$kind" = real ]; then wait_for "$WAIT_S" "ovn-controller to register chassis $name" registered "$name"; fi
  # The chassis says its IPv6 next hop (IPv4 comes from its Encap IP); ovn-controller keeps
  # other_config keys it does not own.
  sb set Chassis "$name" other_config:ovn-bgp-speaker-nexthop-ipv6="$PROVIDER6::$host"
done
printf '  %-38s %-14s %s\n' chassis "on physnet1" "runs"
for c in "${CHASSIS[@]}"; do
  read -r name host kind <<<"$c"
  if [ "$kind" = real ]; then
    runs="ovn-controller + ovs-vswitchd ($DATAPATH datapath) in namespace $(chassis_ns "$name")"
  else
    runs="gateway node: Chassis row from ovn-sbctl chassis-add"
  fi
  printf '  %-38s %-14s %s\n' "$name" "$PROVIDER4.$host" "$runs"
done
echo "($(elapsed))"

# --- the cloud in OVN Northbound -----------------------------------------------------------------

say "The cloud in OVN Northbound (ovn-nbctl)"
# The provider network physnet1, a localnet switch.
nb ls-add public -- lsp-add public ln-public -- lsp-set-type ln-public localnet \
  -- lsp-set-addresses ln-public unknown -- lsp-set-options ln-public network_name=physnet1
# router1: an OpenStack-style tenant router with an HA gateway port on physnet1 (gw1 first).
nb lr-add router1 \
  -- lrp-add router1 lrp-public 00:00:5e:00:53:64 "$PROVIDER4.100/24" "$PROVIDER6::100/64" \
  -- lrp-set-gateway-chassis lrp-public gw1 20 -- lrp-set-gateway-chassis lrp-public gw2 10 \
  -- lsp-add public public-router1 -- lsp-set-type public-router1 router \
  -- lsp-set-addresses public-router1 router \
  -- lsp-set-options public-router1 router-port=lrp-public nat-addresses=router
nb lr-route-add router1 0.0.0.0/0 "$FRR4" -- lr-route-add router1 ::/0 "$FRR6"
# tenant1 is private (SNAT behind the gateway); tenant2 is routable and marked so.
for n in 1 2; do
  nb ls-add "tenant$n" \
    -- lrp-add router1 "lrp-tenant$n" "00:00:5e:00:53:0$n" "198.19.$n.1/24" "2001:db8:$n::1/64" \
    -- lsp-add "tenant$n" "tenant$n-router1" -- lsp-set-type "tenant$n-router1" router \
    -- lsp-set-addresses "tenant$n-router1" router -- lsp-set-options "tenant$n-router1" "router-port=lrp-tenant$n"
done
nb set Logical_Switch tenant2 external_ids:ovn-bgp-speaker.routable=true
nb lr-nat-add router1 snat "$PROVIDER4.100" 198.19.1.0/24
nb lsp-add tenant1 vm1 -- lsp-set-addresses vm1 "50:54:00:00:01:10 198.19.1.10 2001:db8:1::10"
nb lsp-add tenant2 vm2 -- lsp-set-addresses vm2 "50:54:00:00:02:10 198.19.2.10 2001:db8:2::10"
nb lsp-add tenant2 vm3 -- lsp-set-addresses vm3 "50:54:00:00:02:11 198.19.2.11 2001:db8:2::11"
# Floating IPs: distributed (logical_port + external_mac: answered where the VM runs) and
# centralized (answered by the active gateway chassis).
nb lr-nat-add router1 dnat_and_snat 198.18.64.10 198.19.1.10 vm1 50:54:00:00:fe:10
nb lr-nat-add router1 dnat_and_snat 2001:db8:64::10 2001:db8:1::10 vm1 50:54:00:00:fe:11
nb lr-nat-add router1 dnat_and_snat 198.18.64.20 198.19.2.10
nb lr-nat-add router1 dnat_and_snat 2001:db8:64::20 2001:db8:2::10
# A load balancer on router1.
nb lb-add web 198.18.64.100:80 198.19.1.10:8080,198.19.2.10:8080 tcp
nb lb-add web "[2001:db8:64::100]:80" "[2001:db8:1::10]:8080,[2001:db8:2::10]:8080" tcp
nb lr-lb-add router1 web
# A VM with a port straight on the provider network.
nb lsp-add public pvm1 -- lsp-set-addresses pvm1 "50:54:00:00:10:50 $PROVIDER4.50 $PROVIDER6::50"
# An ovn-kubernetes node: node switch with its pod subnet, gateway router GR_node-a on the node's
# chassis with the node's address on physnet1, a service as a load balancer on GR_node-a.
nb ls-add node-a -- set Logical_Switch node-a other_config:subnet=198.19.8.0/24 \
  other_config:ipv6_prefix=2001:db8:8::
nb lsp-add node-a default_web-0 -- lsp-set-addresses default_web-0 "0a:58:c6:13:08:05 198.19.8.5 2001:db8:8::5"
nb lr-add GR_node-a -- set Logical_Router GR_node-a options:chassis="$NODEA_ID"
nb ls-add ext_node-a -- lsp-add ext_node-a breth0_node-a -- lsp-set-type breth0_node-a localnet \
  -- lsp-set-addresses breth0_node-a unknown -- lsp-set-options breth0_node-a network_name=physnet1
nb lrp-add GR_node-a rtoe-GR_node-a 0a:58:c6:12:0a:1f "$PROVIDER4.31/24" "$PROVIDER6::31/64" \
  -- lsp-add ext_node-a etor-GR_node-a -- lsp-set-type etor-GR_node-a router \
  -- lsp-set-addresses etor-GR_node-a router -- lsp-set-options etor-GR_node-a router-port=rtoe-GR_node-a
svc=Service_default/web_TCP_node_router_node-a
nb lb-add "$svc" 198.18.65.10:80 198.19.8.5:8080 tcp
nb lb-add "$svc" "[2001:db8:65::10]:80" "[2001:db8:8::5]:8080" tcp
nb lr-lb-add GR_node-a "$svc"
nb --wait=sb sync

# Plug the workloads in where they run: an OVS port whose iface-id names the logical port;
# ovn-controller claims it (Port_Binding.chassis) and sets it up.
plug() { # CHASSIS_DIR IFNAME LOGICAL_PORT
  vsctl "$1" add-port br-int "$2" -- set Interface "$2" type=internal external_ids:iface-id="$3"
}
plug hv1 vm1 vm1
plug hv2 vm2 vm2
plug hv2 vm3 vm3
plug hv2 pvm1 pvm1
plug nodea web-0 default_web-0
# The active gateway of router1's HA gateway port: bound to gw1, as ovn-controller would after BFD.
sb lsp-bind cr-lrp-public gw1
nb --timeout="$WAIT_S" --wait=hv sync
port_up() { [ "$(nb get Logical_Switch_Port "$1" up)" = true ]; }
for p in vm1 vm2 vm3 pvm1 default_web-0; do wait_for "$WAIT_S" "port $p to be claimed and up" port_up "$p"; done
bound() { sb --bare --columns=chassis find Port_Binding "logical_port=\"$1\"" | grep -q .; }
wait_for "$WAIT_S" "cr-lrp-public bound to gw1" bound cr-lrp-public
echo "router1 (HA gateway gw1 20, gw2 10; active gw1), tenant1 (SNAT), tenant2 (routable), FIPs, LB web,"
echo "provider port pvm1, ovn-kubernetes node-a (GR_node-a, service $svc)"
# Where each port is bound, by the hostname of its chassis (SB Port_Binding.chassis).
host_of() { sb --bare --columns=hostname list Chassis "$(sb --bare --columns=chassis find Port_Binding "logical_port=\"$1\"")"; }
claims=""
for p in vm1 vm2 vm3 pvm1 default_web-0; do claims+="${claims:+, }$p on $(host_of "$p")"; done
echo "ports claimed by ovn-controller: $claims ($(elapsed))"

# --- FRR, the upstream router, and the speaker ---------------------------------------------------

say "FRR $(dpkg-query -W -f='${Version}' frr 2>/dev/null | sed 's/-.*//') (AS $FRR_AS) in $NS_FRR and the speaker (AS $SPEAKER_AS) in $NS_SPEAKER, over physnet1"
ip netns add "$NS_FRR"
ip netns add "$NS_SPEAKER"
ip link add to-speaker netns "$NS_FRR" type veth peer name to-upstream netns "$NS_SPEAKER"
for end in "$NS_FRR to-speaker $FRR4 $FRR6" "$NS_SPEAKER to-upstream $SPEAKER4 $SPEAKER6"; do
  read -r ns ifname a4 a6 <<<"$end"
  ip -n "$ns" link set lo up
  # No DAD on the lab link: its link-local address is usable as soon as the link is.
  ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifname.accept_dad=0"
  ip -n "$ns" addr add "$a4/24" dev "$ifname"
  ip -n "$ns" addr add "$a6/64" dev "$ifname" nodad
  ip -n "$ns" link set "$ifname" up
done
# The kernel marks a link running (and gives it its link-local address) a moment after it came
# up, later still when other links are changing: until then the interface is missing from what
# programs list (getifaddrs), and FRR and the speaker would start without its addresses.
link_ready() { # NS IFNAME
  ip -n "$1" -o link show dev "$2" | grep -q 'state UP' &&
    ip -n "$1" -6 -o addr show dev "$2" scope link | grep -q inet6
}
wait_for "$WAIT_S" "the link to the speaker" link_ready "$NS_FRR" to-speaker
wait_for "$WAIT_S" "the link to FRR" link_ready "$NS_SPEAKER" to-upstream

FRR_DIR=$LAB/frr
mkdir -p "$FRR_DIR"
cat >"$FRR_DIR/zebra.conf" <<EOF
hostname upstream
log file $FRR_DIR/zebra.log informational
EOF
# "debug bgp updates in" with millisecond stamps: the log says when each UPDATE arrived, which
# times the live change below more precisely than looking with vtysh can.
cat >"$FRR_DIR/bgpd.conf" <<EOF
log file $FRR_DIR/bgpd.log debugging
log timestamp precision 3
debug bgp updates in
hostname upstream
!
router bgp $FRR_AS
 bgp router-id $FRR4
 ! FRR 8 defaults that would get in the way of a lab: eBGP without route-maps, IPv4 on v6 sessions
 no bgp ebgp-requires-policy
 no bgp default ipv4-unicast
 neighbor $SPEAKER4 remote-as $SPEAKER_AS
 neighbor $SPEAKER4 description ovn-bgp-speaker (IPv4)
 neighbor $SPEAKER4 timers 3 9
 neighbor $SPEAKER4 timers connect 2
 neighbor $SPEAKER6 remote-as $SPEAKER_AS
 neighbor $SPEAKER6 description ovn-bgp-speaker (IPv6)
 neighbor $SPEAKER6 timers 3 9
 neighbor $SPEAKER6 timers connect 2
 address-family ipv4 unicast
  neighbor $SPEAKER4 activate
 exit-address-family
 address-family ipv6 unicast
  neighbor $SPEAKER6 activate
 exit-address-family
exit
EOF
# FRR runs as user frr (as root it refuses: root is not in group frrvty), so it owns its dir.
chown -R frr:frr "$FRR_DIR"
chmod 755 "$FRR_DIR"
# In the foreground under setsid: the PID we record is the daemon's, and it outlives this script.
for d in zebra bgpd; do
  setsid ip netns exec "$NS_FRR" "/usr/lib/frr/$d" -z "$FRR_DIR/zserv.api" --vty_socket "$FRR_DIR" \
    -i "$FRR_DIR/$d.pid" -f "$FRR_DIR/$d.conf" -P 0 </dev/null >>"$FRR_DIR/$d.out" 2>&1 &
  record "frr/$d" $!
  if [ "$d" = zebra ]; then wait_for "$WAIT_S" "zebra" test -S "$FRR_DIR/zserv.api"; fi
done
bgpd_up() { timeout 5 vtysh --vty_socket "$FRR_DIR" -d bgpd -c 'show bgp summary json' | grep -q routerId; }
wait_for "$WAIT_S" "bgpd to answer vtysh" bgpd_up

SOCKET=$LAB/speaker.sock
cat >"$LAB/speaker.yaml" <<EOF
speaker:
  name: ovn-demo
  local_as: $SPEAKER_AS
  router_id: $SPEAKER4
  listen: { address: "::", port: 179 }
  hold_time: 9
  connect_retry: 2
  control_socket: $SOCKET
peers: # one session per address family
  - { name: upstream4, peer_ip: $FRR4, remote_as: $FRR_AS, import: [nothing], export: [all] }
  - { name: upstream6, peer_ip: "$FRR6", remote_as: $FRR_AS, import: [nothing], export: [all] }
policies: # RFC 8212: eBGP peers exchange nothing without policies; here we only publish
  all: { statements: [{ action: accept }] }
  nothing: { statements: [{ action: reject }] }
ovn:
  nb: unix:$LAB/nb.sock
  sb: unix:$LAB/sb.sock
  mode: central # every route, next hop the chassis that hosts it
  coalesce_ms: 20
  routes: # a community per kind, so the upstream can tell them apart
    floating_ips: { communities: ["$SPEAKER_AS:101"] }
    tenant_networks: { enabled: true, select: { marker: ovn-bgp-speaker.routable }, communities: ["$SPEAKER_AS:102"] }
    load_balancer_vips: { communities: ["$SPEAKER_AS:103"] }
    provider_ports: { communities: ["$SPEAKER_AS:104"] }
    pod_subnets: { communities: ["$SPEAKER_AS:105"] }
    service_vips: { communities: ["$SPEAKER_AS:106"] }
EOF
setsid ip netns exec "$NS_SPEAKER" node dist/src/cli/main.js run --config "$LAB/speaker.yaml" \
  </dev/null >"$LAB/speaker.log" 2>&1 &
record speaker $!
echo "FRR neighbors $SPEAKER4 and $SPEAKER6; speaker config $LAB/speaker.yaml ($(elapsed))"

# --- what FRR learned ----------------------------------------------------------------------------

demo_tool() { npx tsx frr-interop/ovn-demo/cli.ts "$@"; }
say "What FRR learned from the speaker, and the OVN row behind each route"
demo_tool routes --socket "$SOCKET" --vty "$FRR_DIR" --timeout "$ROUTES_WAIT_S"

say "One live change: a new floating IP for vm3 (on hv2)"
# Timed from ovsdb-server's log line for the update notification (the commit, as the speaker
# receives it) to bgpd's log line for the UPDATE.
demo_tool live-fip --socket "$SOCKET" --vty "$FRR_DIR" --nb "unix:$LAB/nb.sock" --nb-ctl "$LAB/nb.ctl" \
  --nb-log "$LAB/nb.log" --frr-log "$FRR_DIR/bgpd.log" --timeout "$ROUTES_WAIT_S" \
  -- router1 dnat_and_snat "$LIVE_FIP" 198.19.2.11 vm3 50:54:00:00:fe:30

if [ "$once" = 1 ]; then
  say "Removing everything (--once)"
  teardown
  trap - EXIT
  echo "demo done in $(elapsed)"
  exit 0
fi
trap - EXIT

say "Try it (everything keeps running)"
cli="node dist/src/cli/main.js"
cat <<EOF
The upstream router, FRR: its BGP table, the floating IPs alone (by community), what it installed
  vtysh --vty_socket $FRR_DIR -c 'show bgp ipv4 unicast'
  vtysh --vty_socket $FRR_DIR -c 'show bgp ipv6 unicast'
  vtysh --vty_socket $FRR_DIR -c 'show bgp ipv4 unicast community $SPEAKER_AS:101'
  vtysh --vty_socket $FRR_DIR -c 'show ip route'
  ip netns exec $NS_FRR ip route
The speaker: sessions, each OVN route with its row and why that next hop, what OVN holds that
cannot be advertised, the RIB; its log is $LAB/speaker.log
  $cli show summary --socket $SOCKET
  $cli show ovn --socket $SOCKET
  $cli show ovn problems --socket $SOCKET
  $cli show rib --socket $SOCKET
OVN (add --wait=sb to an ovn-nbctl command to wait for ovn-northd) and a chassis (its taps)
  ovn-nbctl --db=unix:$LAB/nb.sock show
  ovn-sbctl --db=unix:$LAB/sb.sock show
  ovs-vsctl --db=unix:$LAB/hv1/db.sock show
  ip netns exec ${CHASSIS_NS_PREFIX}hv1 ip -br link
Things to change, then look at FRR again:
  # gateway failover: gw2 takes over router1's gateway; centralized FIPs and the LB VIP move
  ovn-sbctl --db=unix:$LAB/sb.sock lsp-unbind cr-lrp-public -- lsp-bind cr-lrp-public gw2
  # live migration: vm1 moves from hv1 to hv2; its distributed FIPs follow
  ovs-vsctl --db=unix:$LAB/hv1/db.sock del-port vm1
  ovs-vsctl --db=unix:$LAB/hv2/db.sock add-port br-int vm1 -- set Interface vm1 type=internal external_ids:iface-id=vm1
  # tenant1 becomes routable (no SNAT, marked)
  ovn-nbctl --db=unix:$LAB/nb.sock lr-nat-del router1 snat 198.19.1.0/24 -- set Logical_Switch tenant1 external_ids:ovn-bgp-speaker.routable=true
  # a new service VIP on the node
  ovn-nbctl --db=unix:$LAB/nb.sock lb-add $svc 198.18.65.11:443 198.19.8.5:8443 tcp
  # remove the FIP the demo added
  ovn-nbctl --db=unix:$LAB/nb.sock lr-nat-del router1 dnat_and_snat $LIVE_FIP
Remove everything (the same as: bash scripts/demo-ovn.sh down)
  npm run demo -- down
EOF
