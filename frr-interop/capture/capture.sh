#!/usr/bin/env bash
# capture.sh -- regenerate fixtures/bgp/*.json from real FRR, GoBGP and BIRD sessions (run as root).
#
# Brings up three namespaces (obs-cap-frr, obs-cap-gobgp, obs-cap-bird) joined by veths, captures
# TCP port 179 on every link with tshark, drives the daemons through a fixed script of events
# (routes, withdrawals, route refresh, shutdowns with messages), stops everything and hands the
# pcaps to extract.py, which writes one JSON fixture per session. Topology and the daemons'
# configurations are in configs.sh, the list of sessions in sessions.json.
#
# env: CAPTURE_OUT   output directory (default <repo>/fixtures/bgp)
#      CAPTURE_KEEP  if set, a directory where the pcaps, configs and daemon logs are copied
#
# Everything started here is stopped by PID and every namespace removed on exit, also on failure.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${CAPTURE_OUT:-$REPO/fixtures/bgp}
KEEP=${CAPTURE_KEEP:-}
# shellcheck source=configs.sh
source "$HERE/configs.sh"

NS_FRR=obs-cap-frr
NS_GOBGP=obs-cap-gobgp
NS_BIRD=obs-cap-bird
ALL_NS=("$NS_FRR" "$NS_GOBGP" "$NS_BIRD")
FRR_AS=4200000001
T0=$(date +%s%N)
WORK=""
PCAP_PIDS=()   # tshark PIDs
GOBGPD_PID=""

log() { printf '[capture %6.1fs] %s\n' "$(( ($(date +%s%N) - T0) / 1000000 ))e-3" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# wait_for <seconds> <command...>: poll every 0.2 s until the command succeeds or time is up.
wait_for() {
  local deadline=$(( $(date +%s%N) + $1 * 1000000000 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s%N)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

vtysh_frr() { ip netns exec "$NS_FRR" vtysh --vty_socket "$WORK/frr" "$@"; }
gobgp_cli() { ip netns exec "$NS_GOBGP" gobgp -u 127.0.0.1 -p 50051 "$@"; }
birdc_cli() { ip netns exec "$NS_BIRD" birdc -s "$WORK/bird/bird.ctl" "$@"; }
frr_conf() { # run configuration lines under `router bgp`
  local args=(-c 'configure terminal' -c "router bgp $FRR_AS") line
  for line in "$@"; do args+=(-c "$line"); done
  vtysh_frr "${args[@]}" -c 'end' >/dev/null
}

# step <command...>: run one event command; on failure stop with its output.
step() {
  local out
  out=$("$@" 2>&1) || die "failed: $* -> $out"
  return 0
}

pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# stop_pids <signal> <seconds> <pid...>: signal by PID, wait bounded, then SIGKILL what is left.
stop_pids() {
  local sig=$1 secs=$2 p i left; shift 2
  for p in "$@"; do pid_alive "$p" && kill -s "$sig" "$p" 2>/dev/null || true; done
  for ((i = 0; i < secs * 10; i++)); do
    left=0
    for p in "$@"; do pid_alive "$p" && left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  for p in "$@"; do pid_alive "$p" && kill -KILL "$p" 2>/dev/null || true; done
  return 0
}

pid_from_file() { [ -s "$1" ] && tr -d ' \n' <"$1" || true; }

daemon_pids() {
  local f
  for f in "$WORK/frr/zebra.pid" "$WORK/frr/bgpd.pid" "$WORK/bird/bird.pid"; do pid_from_file "$f"; echo; done
  echo "$GOBGPD_PID"
}

# Processes left in our namespaces (only possible after a crash); they are ours by construction.
ns_exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }

netns_leftover_pids() {
  local ns
  for ns in "${ALL_NS[@]}"; do
    if ns_exists "$ns"; then ip netns pids "$ns" 2>/dev/null || true; fi
  done
}

remove_namespaces() {
  local ns pids
  pids=$(netns_leftover_pids | sort -u)
  # shellcheck disable=SC2086
  [ -n "$pids" ] && stop_pids TERM 5 $pids
  for ns in "${ALL_NS[@]}"; do
    if ns_exists "$ns"; then ip netns del "$ns" 2>/dev/null || true; fi
  done
}

stop_captures() {
  [ ${#PCAP_PIDS[@]} -gt 0 ] || return 0
  stop_pids INT 10 "${PCAP_PIDS[@]}"
  PCAP_PIDS=()
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  # shellcheck disable=SC2046
  stop_pids TERM 6 $(daemon_pids | grep -E '^[0-9]+$')
  stop_captures
  remove_namespaces
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then
    if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && cp -r "$WORK"/. "$KEEP"/ && log "kept work files in $KEEP"; fi
    rm -rf "$WORK"
  fi
  [ "$rc" = 0 ] && log "done" || log "failed (exit $rc), everything torn down"
  exit "$rc"
}

[ "$(id -u)" = 0 ] || die "run as root"
for tool in tshark vtysh gobgpd gobgp bird birdc python3 jq; do command -v "$tool" >/dev/null || die "missing $tool"; done

trap cleanup EXIT
trap 'exit 130' INT TERM

# A run that was killed hard (SIGKILL) may have left namespaces and a work directory behind.
remove_namespaces
rm -rf /tmp/obs-cap.??????

WORK=$(mktemp -d /tmp/obs-cap.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/frr" "$WORK/gobgp" "$WORK/bird" "$WORK/pcap"
chown frr:frr "$WORK/frr"

versions() {
  local frr gobgp bird
  frr=$(/usr/lib/frr/bgpd --version 2>&1 | sed -n 's/^bgpd version \([0-9.]*\).*/\1/p' | head -1)
  gobgp=$(gobgpd --version 2>&1 | sed -n 's/^gobgpd version \([0-9.]*\).*/\1/p' | head -1)
  bird=$(bird --version 2>&1 | sed -n 's/^BIRD version \([0-9.]*\).*/\1/p' | head -1)
  [ -n "$frr" ] && [ -n "$gobgp" ] && [ -n "$bird" ] || die "cannot read daemon versions"
  echo "frr=$frr,gobgp=$gobgp,bird=$bird"
}
VERSIONS=$(versions)
log "versions: $VERSIONS"

# --- network -----------------------------------------------------------------------------------
# Fixed locally administered MACs keep the IPv6 link-local next hops the same on every run.
make_link() { # ns_a if_a mac_a ns_b if_b mac_b
  ip link add "$2" address "$3" netns "$1" type veth peer name "$5" address "$6" netns "$4"
}
add_addrs() { # ns if addr...
  local ns=$1 ifc=$2 a; shift 2
  for a in "$@"; do
    case $a in
      *:*) ip -n "$ns" addr add "$a" dev "$ifc" nodad ;;
      *) ip -n "$ns" addr add "$a" dev "$ifc" ;;
    esac
  done
  ip -n "$ns" link set "$ifc" up
}

for ns in "${ALL_NS[@]}"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
done
make_link "$NS_FRR" gobgp0 02:00:00:0c:01:01 "$NS_GOBGP" frr0 02:00:00:0c:01:02
make_link "$NS_FRR" bird0 02:00:00:0c:02:01 "$NS_BIRD" frr0 02:00:00:0c:02:03
make_link "$NS_GOBGP" bird0 02:00:00:0c:03:02 "$NS_BIRD" gobgp0 02:00:00:0c:03:03
# primary address first: it is the source of the sessions that do not bind one
add_addrs "$NS_FRR" gobgp0 198.18.101.1/24 198.18.101.11/24 198.18.101.21/24 2001:db8:101::1/64
add_addrs "$NS_GOBGP" frr0 198.18.101.2/24 198.18.101.12/24 198.18.101.22/24 2001:db8:101::2/64
add_addrs "$NS_FRR" bird0 198.18.102.1/24 198.18.102.11/24 2001:db8:102::1/64
add_addrs "$NS_BIRD" frr0 198.18.102.3/24 198.18.102.13/24 2001:db8:102::3/64
add_addrs "$NS_GOBGP" bird0 198.18.103.2/24 2001:db8:103::2/64
add_addrs "$NS_BIRD" gobgp0 198.18.103.3/24 2001:db8:103::3/64
log "namespaces and veths up"

# --- captures ----------------------------------------------------------------------------------
start_capture() { # ns if name
  local err="$WORK/pcap/$3.tshark.log"
  ip netns exec "$1" tshark -i "$2" -f 'tcp port 179' -F pcap -w "$WORK/pcap/$3.pcap" -q >"$err" 2>&1 &
  PCAP_PIDS+=("$!")
}
start_capture "$NS_FRR" gobgp0 frr-gobgp
start_capture "$NS_FRR" bird0 frr-bird
start_capture "$NS_GOBGP" bird0 gobgp-bird
for name in frr-gobgp frr-bird gobgp-bird; do
  wait_for 15 grep -q "Capturing on" "$WORK/pcap/$name.tshark.log" ||
    die "tshark on $name did not start: $(cat "$WORK/pcap/$name.tshark.log")"
done
log "captures running"

# --- daemons -----------------------------------------------------------------------------------
frr_zebra_conf "$WORK/frr" >"$WORK/frr/zebra.conf"
frr_bgpd_conf "$WORK/frr" >"$WORK/frr/bgpd.conf"
chown frr:frr "$WORK/frr"/*.conf
gobgp_conf >"$WORK/gobgp/gobgpd.toml"
bird_conf "$WORK/bird" >"$WORK/bird/bird.conf"
gobgpd -f "$WORK/gobgp/gobgpd.toml" -t toml -d >/dev/null 2>&1 || die "gobgpd rejects its config"
bird -p -c "$WORK/bird/bird.conf" || die "bird rejects its config"

FRR_ARGS=(-d -z "$WORK/frr/zserv.api" --vty_socket "$WORK/frr" -P 0)
ip netns exec "$NS_FRR" /usr/lib/frr/zebra "${FRR_ARGS[@]}" -i "$WORK/frr/zebra.pid" -f "$WORK/frr/zebra.conf" 2>>"$WORK/frr/stderr.log"
wait_for 10 test -S "$WORK/frr/zserv.api" || die "zebra did not start"
ip netns exec "$NS_FRR" /usr/lib/frr/bgpd "${FRR_ARGS[@]}" -i "$WORK/frr/bgpd.pid" -f "$WORK/frr/bgpd.conf" 2>>"$WORK/frr/stderr.log"
wait_for 10 test -S "$WORK/frr/bgpd.vty" || die "bgpd did not start"

# GoBGP puts the host name into its FQDN capability: give it its own UTS namespace and name.
# (unshare and sh exec in place, so $! is gobgpd's PID)
ip netns exec "$NS_GOBGP" unshare --uts sh -c 'hostname gobgp-cap && exec gobgpd "$@"' gobgpd \
  -f "$WORK/gobgp/gobgpd.toml" -t toml --api-hosts 127.0.0.1:50051 --pprof-disable -l info \
  </dev/null >"$WORK/gobgp/gobgpd.log" 2>&1 &
GOBGPD_PID=$!
wait_for 10 gobgp_cli global || die "gobgpd did not start"
while read -r family prefix attrs; do
  # shellcheck disable=SC2086
  gobgp_cli global rib add -a "$family" "$prefix" $attrs </dev/null || die "gobgp rib add $prefix $attrs"
done < <(gobgp_routes)

ip netns exec "$NS_BIRD" bird -c "$WORK/bird/bird.conf" -s "$WORK/bird/bird.ctl" -P "$WORK/bird/bird.pid"
wait_for 10 test -s "$WORK/bird/bird.pid" || die "bird did not start"
log "daemons started"

# --- wait for the sessions ---------------------------------------------------------------------
FRR_PEERS='["198.18.101.2","2001:db8:101::2","198.18.101.12","198.18.102.3","2001:db8:102::3","198.18.102.13"]'
frr_established() {
  vtysh_frr -c 'show bgp neighbors json' |
    jq -e --argjson want "$FRR_PEERS" '[$want[] as $p | .[$p].bgpState == "Established"] | all' >/dev/null
}
gobgp_established() { # GoBGP <-> BIRD sessions (session_state 6 = ESTABLISHED)
  gobgp_cli neighbor -j |
    jq -e '[.[] | select(.conf.neighbor_address == "198.18.103.3" or .conf.neighbor_address == "2001:db8:103::3")
            | .state.session_state == 6] | length == 2 and all' >/dev/null
}
wait_for 40 frr_established || die "FRR sessions not established: $(vtysh_frr -c 'show bgp summary' 2>&1 | tail -20)"
wait_for 20 gobgp_established || die "GoBGP-BIRD sessions not established: $(gobgp_cli neighbor 2>&1)"
log "all sessions established"

# Routes travel around the triangle once or twice (add-path, reflection, AS_SET aggregate):
# wait until FRR has learnt BIRD's and GoBGP's add-path prefix over several sessions, then settle.
frr_has_paths() {
  vtysh_frr -c 'show bgp ipv4 unicast 198.19.50.0/24 json' | jq -e '(.paths | length) >= 3' >/dev/null
}
wait_for 10 frr_has_paths || log "warning: FRR has fewer than 3 paths for 198.19.50.0/24"
# gobgpd keeps running when a policy is invalid; the capture would silently lack its attributes
! grep -q '"Topic":"Policy","level":"error"' "$WORK/gobgp/gobgpd.log" ||
  die "gobgpd policy error: $(grep '"Topic":"Policy"' "$WORK/gobgp/gobgpd.log" | head -3)"
sleep 3
log "converged"

# --- events ------------------------------------------------------------------------------------
# withdrawals: IPv4 (withdrawn routes field) and IPv6 (MP_UNREACH_NLRI) from each implementation
step frr_conf 'address-family ipv4 unicast' 'no network 198.19.41.0/24' 'exit-address-family' \
  'address-family ipv6 unicast' 'no network 2001:db8:f41::/48'
step gobgp_cli global rib del -a ipv4 198.19.42.0/24
step gobgp_cli global rib del -a ipv6 2001:db8:f42::/48
step birdc_cli disable withdraw4
step birdc_cli disable withdraw6
sleep 2
log "withdrawals sent"

# ROUTE-REFRESH: FRR soft in (plain RR to GoBGP; BIRD answers with BoRR/EoRR), FRR soft out to
# BIRD (BoRR/EoRR from FRR), BIRD reload in. GoBGP 3.10 never sends ROUTE-REFRESH: its
# `softresetin` re-runs its own Adj-RIB-In.
step vtysh_frr -c 'clear bgp ipv4 unicast 198.18.101.2 soft in' -c 'clear bgp ipv6 unicast 198.18.101.2 soft in'
step vtysh_frr -c 'clear bgp ipv4 unicast 2001:db8:102::3 soft in' -c 'clear bgp ipv6 unicast 2001:db8:102::3 soft in'
step vtysh_frr -c 'clear bgp ipv4 unicast 198.18.102.3 soft in'
sleep 1
step vtysh_frr -c 'clear bgp ipv4 unicast 2001:db8:102::3 soft out' -c 'clear bgp ipv6 unicast 2001:db8:102::3 soft out'
step birdc_cli reload in frr_v6
step birdc_cli reload in frr_v4
step birdc_cli reload in gobgp_v4
step birdc_cli reload in gobgp_v6
sleep 2
log "route refresh done"

# Cease: administrative shutdown with an RFC 9003 message from each, and a de-configured peer.
step frr_conf 'neighbor 198.18.101.2 shutdown message FRR maintenance: session to GoBGP going down'
# GoBGP 3.10's CLI drops --reason on `disable`; the deprecated `shutdown` passes it on.
step gobgp_cli neighbor 198.18.103.3 shutdown --reason "GoBGP maintenance: session to BIRD going down"
# a hard reset with a message: Cease/4 Administrative Reset (RFC 9003 covers it too)
step gobgp_cli neighbor 2001:db8:103::3 reset --reason "GoBGP: resetting the session to BIRD"
# birdc joins its arguments into one command line, where the message must be a quoted string
step birdc_cli disable frr_v6 '"BIRD maintenance — session to FRR going down"'
step frr_conf 'no neighbor 2001:db8:101::2'
sleep 2
log "shutdowns sent"

# Stop the daemons one after the other while the captures still run, so each remaining session
# ends with the stopping side's own NOTIFICATION: GoBGP (S7), then BIRD (S3, S8). FRR goes last:
# with graceful restart it closes without a NOTIFICATION anyway.
stop_pids TERM 6 "$GOBGPD_PID"
sleep 0.5
stop_pids TERM 6 "$(pid_from_file "$WORK/bird/bird.pid")"
sleep 0.5
stop_pids TERM 6 "$(pid_from_file "$WORK/frr/bgpd.pid")" "$(pid_from_file "$WORK/frr/zebra.pid")"
sleep 0.5
stop_captures
log "daemons and captures stopped"

# --- extraction --------------------------------------------------------------------------------
python3 "$HERE/extract.py" --sessions "$HERE/sessions.json" --pcaps "$WORK/pcap" \
  --versions "$VERSIONS" --made-by "frr-interop/capture/capture.sh" --out "$WORK/out"
mkdir -p "$OUT"
# Replace only the fixtures this script made before.
for f in "$OUT"/*.json; do
  [ -e "$f" ] || continue
  jq -e '.made_by == "frr-interop/capture/capture.sh"' "$f" >/dev/null 2>&1 && rm -f "$f"
done
cp "$WORK/out"/*.json "$OUT"/
log "wrote $(ls "$WORK/out" | wc -l) fixtures to $OUT"
