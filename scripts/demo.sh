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

# The speaker itself, peering with FRR, GoBGP and BIRD in network namespaces (root only):
# the demo lab, our speaker in its namespace with the configuration below, then `show summary`
# and `show rib` once every session is up and the routes are in. Everything is torn down after.
echo
if [ "$(id -u)" != 0 ]; then
  echo "(as root, the demo also runs the speaker with FRR, GoBGP and BIRD in network namespaces)"
  exit 0
fi
bash scripts/deps.sh
lab_id=demo
lab_dir=/tmp/obs-lab-$lab_id
speaker_ns=obs-$lab_id-speaker
socket=$lab_dir/speaker-control.sock
speaker_pid=""
stop_lab() {
  if [ -n "$speaker_pid" ] && kill -TERM "$speaker_pid" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$speaker_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  timeout 30 npx tsx frr-interop/lab/cli.ts down --id "$lab_id" >/dev/null 2>&1 || true
}
trap stop_lab EXIT
echo "== The speaker with FRR 8.4 (AS 65001), GoBGP 3.10 (AS 65002) and BIRD 2 (AS 65003) =="
up=$(timeout 60 npx tsx frr-interop/lab/cli.ts up --id "$lab_id")
echo "${up%%$'\n'*}"
cat > "$lab_dir/speaker.yaml" <<EOF
speaker:
  name: demo
  local_as: 65000
  router_id: 198.18.0.1
  listen: { address: "::", port: 179 }
  hold_time: 9
  connect_retry: 2
  control_socket: $socket
peers: # one session per address family, as the lab's daemons have them
  - { name: frr4, peer_ip: 198.18.1.2, remote_as: 65001, import: [all], export: [all] }
  - { name: frr6, peer_ip: "2001:db8:1::2", remote_as: 65001, import: [all], export: [all] }
  - { name: gobgp4, peer_ip: 198.18.2.2, remote_as: 65002, import: [all], export: [all] }
  - { name: gobgp6, peer_ip: "2001:db8:2::2", remote_as: 65002, import: [all], export: [all] }
  - { name: bird4, peer_ip: 198.18.3.2, remote_as: 65003, import: [all], export: [all] }
  - { name: bird6, peer_ip: "2001:db8:3::2", remote_as: 65003, import: [all], export: [all] }
routes:
  - { prefix: 198.19.100.0/24, communities: ["65000:100"] }
networks: ["2001:db8:f00::/48"]
policies: # RFC 8212: eBGP peers need a policy to exchange anything
  all: { statements: [{ action: accept }] }
EOF
ip netns exec "$speaker_ns" node dist/src/cli/main.js run --config "$lab_dir/speaker.yaml" >"$lab_dir/speaker.log" 2>&1 &
speaker_pid=$!
# Up when all six sessions are Established and each family holds the four prefixes (3 peers + ours).
ready() {
  $bin show summary --json=native --socket "$socket" 2>/dev/null | node -e '
    let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => {
      const s = JSON.parse(t);
      const up = s.neighbors.length === 6 && s.neighbors.every((n) => n.state === "Established");
      process.exit(up && s.rib["ipv4-unicast"] >= 4 && s.rib["ipv6-unicast"] >= 4 ? 0 : 1);
    });'
}
for _ in $(seq 60); do ready && break; sleep 0.5; done
$bin show summary --socket "$socket"
echo
$bin show rib --socket "$socket"
echo
$bin show rib 198.19.1.0/24 --socket "$socket"
