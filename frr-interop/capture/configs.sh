# configs.sh -- daemon configurations for capture.sh (sourced, not run).
#
# Topology (namespaces obs-cap-frr, obs-cap-gobgp, obs-cap-bird; one veth pair per link):
#
#   FRR  AS 4200000001            GoBGP AS 4200000002            BIRD AS 4200000003
#   gobgp0 198.18.101.1/.11/.21 ── frr0   198.18.101.2/.12/.22
#          2001:db8:101::1             2001:db8:101::2
#   bird0  198.18.102.1/.11 ────────────────────────────────── frr0   198.18.102.3/.13
#          2001:db8:102::1                                             2001:db8:102::3
#                                  bird0  198.18.103.2 ─────── gobgp0 198.18.103.3
#                                         2001:db8:103::2              2001:db8:103::3
#
# Sessions (one side passive, so each session is exactly one TCP connection):
#   S1 frr-gobgp  198.18.101.1  - .2    eBGP 4-octet, ipv4+ipv6 unicast, add-path both ways
#   S2 frr-gobgp  2001:db8:101::1 - ::2 eBGP 2-octet (local-as 65001 / 65002), ipv6 unicast
#   S7 frr-gobgp  198.18.101.11 - .12   iBGP 4200000001 (GoBGP local-as), FRR reflects to it
#   S9 frr-gobgp  198.18.101.21 - .22   FRR expects AS 65099: OPEN error Bad Peer AS
#   S3 frr-bird   198.18.102.1  - .3    BIRD `enable as4 off` (65003), FRR local-as 65001, roles
#   S4 frr-bird   2001:db8:102::1 - ::3 eBGP 4-octet, RFC 8950 IPv4 over IPv6 next hop, add-path
#   S8 frr-bird   198.18.102.11 - .13   iBGP 4200000001 (BIRD local as), FRR reflects to it
#   S5 gobgp-bird 198.18.103.2  - .3    eBGP 2-octet (65002 / 65003), BIRD `enable as4 off`, ipv4
#   S6 gobgp-bird 2001:db8:103::2 - ::3 eBGP 4-octet, ipv6 + ipv4 (RFC 8950), add-path, LLGR
#
# Originated prefixes (x = 1 FRR, 2 GoBGP, 3 BIRD):
#   198.19.x.0/24  2001:db8:f0x::/48   plain
#   198.19.1x.0/24 2001:db8:f1x::/48   MED, communities, ext communities, large communities, prepend
#   198.19.4x.0/24 2001:db8:f4x::/48   withdrawn during the run
#   198.19.3x.0/24 2001:db8:f3x::/48   contributors of FRR's AS_SET aggregate 198.19.32.0/20 / f30::/44
#   198.19.50.0/24 2001:db8:f50::/48   originated by GoBGP and BIRD (several paths for add-path)
#   FRR also: 198.19.17+18.0/24 -> aggregate 198.19.16.0/20 summary-only (ATOMIC_AGGREGATE),
#             2001:db8:f21+f22::/48 -> 2001:db8:f20::/44 summary-only
#   GoBGP also: 198.19.24.0/21 carrying an AGGREGATOR, 198.19.51.0/24 with two local paths.
#   BIRD also: 198.19.60.0/24 with 1100 communities + NO_ADVERTISE, to FRR over S4 only (> 4096 octets).

frr_bgpd_conf() { # $1 = FRR work dir
  cat <<EOF
hostname frr-cap
domainname lab.test
log file $1/bgpd.log informational
! no automatic re-application of changed route-maps: it sends unprompted ROUTE-REFRESHes
bgp route-map delay-timer 0
!
route-map RICH permit 10
 set origin egp
 set metric 50
 set community 65001:100 65001:200 no-export
 set extcommunity rt 4200000001:100 65001:200
 set extcommunity soo 198.18.101.1:7
 set large-community 4200000001:1:2 4200000001:3:4
 set as-path prepend 4200000001 4200000001
!
route-map INCOMPLETE permit 10
 set origin incomplete
!
! FRR speaks as 4200000001 and (local-as) 65001: drop paths that already went through either,
! so routes do not circle the triangle under the other identity.
bgp as-path access-list OWN seq 5 permit _4200000001_
bgp as-path access-list OWN seq 10 permit _65001_
route-map FROM-PEERS deny 10
 match as-path OWN
route-map FROM-PEERS permit 20
!
router bgp 4200000001
 bgp router-id 198.18.101.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 no bgp default ipv4-unicast
 bgp graceful-restart
 bgp long-lived-graceful-restart stale-time 30
 timers bgp 3 9
 ! S1: eBGP 4-octet over IPv4, both families, add-path; FRR connects, later shuts it with a message
 neighbor 198.18.101.2 remote-as 4200000002
 neighbor 198.18.101.2 timers connect 5
 neighbor 198.18.101.2 advertisement-interval 0
 ! S2: eBGP with 2-octet ASNs over IPv6; FRR connects, later removes the neighbor (Cease/3)
 neighbor 2001:db8:101::2 remote-as 65002
 neighbor 2001:db8:101::2 local-as 65001 no-prepend replace-as
 neighbor 2001:db8:101::2 timers connect 5
 neighbor 2001:db8:101::2 advertisement-interval 0
 ! S7: iBGP route-reflector client GoBGP; GoBGP connects
 neighbor 198.18.101.12 remote-as 4200000001
 neighbor 198.18.101.12 update-source 198.18.101.11
 neighbor 198.18.101.12 passive
 neighbor 198.18.101.12 advertisement-interval 0
 ! S9: wrong remote-as on purpose (GoBGP is 4200000002): FRR answers its OPEN with 2/2
 neighbor 198.18.101.22 remote-as 65099
 neighbor 198.18.101.22 update-source 198.18.101.21
 neighbor 198.18.101.22 timers connect 30
 ! S3: BIRD with AS4 off (AS 65003). BIRD checks the AS4 capability's number against its
 ! (2-octet) neighbor AS, so FRR shows itself as 65001; its paths still carry 4200000001 etc.,
 ! so FRR must send AS_TRANS + AS4_PATH / AS4_AGGREGATOR
 neighbor 198.18.102.3 remote-as 65003
 neighbor 198.18.102.3 local-as 65001
 neighbor 198.18.102.3 local-role provider
 neighbor 198.18.102.3 passive
 neighbor 198.18.102.3 advertisement-interval 0
 ! S4: eBGP 4-octet over IPv6, IPv4 NLRI with IPv6 next hop (RFC 8950), add-path
 neighbor 2001:db8:102::3 remote-as 4200000003
 neighbor 2001:db8:102::3 capability extended-nexthop
 neighbor 2001:db8:102::3 passive
 neighbor 2001:db8:102::3 advertisement-interval 0
 ! S8: iBGP route-reflector client BIRD; FRR connects
 neighbor 198.18.102.13 remote-as 4200000001
 neighbor 198.18.102.13 update-source 198.18.102.11
 neighbor 198.18.102.13 timers connect 5
 neighbor 198.18.102.13 advertisement-interval 0
 !
 address-family ipv4 unicast
  network 198.19.1.0/24
  network 198.19.11.0/24 route-map RICH
  network 198.19.17.0/24
  network 198.19.18.0/24 route-map INCOMPLETE
  aggregate-address 198.19.16.0/20 summary-only
  network 198.19.33.0/24
  aggregate-address 198.19.32.0/20 as-set
  network 198.19.41.0/24
  neighbor 198.18.101.2 activate
  neighbor 198.18.101.2 route-map FROM-PEERS in
  neighbor 198.18.101.2 addpath-tx-all-paths
  neighbor 198.18.101.12 activate
  neighbor 198.18.101.12 route-map FROM-PEERS in
  neighbor 198.18.101.12 route-reflector-client
  neighbor 198.18.101.22 activate
  neighbor 198.18.101.22 route-map FROM-PEERS in
  neighbor 198.18.102.3 activate
  neighbor 198.18.102.3 route-map FROM-PEERS in
  neighbor 2001:db8:102::3 activate
  neighbor 2001:db8:102::3 route-map FROM-PEERS in
  neighbor 2001:db8:102::3 addpath-tx-all-paths
  neighbor 198.18.102.13 activate
  neighbor 198.18.102.13 route-map FROM-PEERS in
  neighbor 198.18.102.13 route-reflector-client
  neighbor 198.18.102.13 next-hop-self force
 exit-address-family
 !
 address-family ipv6 unicast
  network 2001:db8:f01::/48
  network 2001:db8:f11::/48 route-map RICH
  network 2001:db8:f21::/48
  network 2001:db8:f22::/48
  aggregate-address 2001:db8:f20::/44 summary-only
  network 2001:db8:f33::/48
  aggregate-address 2001:db8:f30::/44 as-set
  network 2001:db8:f41::/48
  neighbor 198.18.101.2 activate
  neighbor 198.18.101.2 route-map FROM-PEERS in
  neighbor 198.18.101.2 addpath-tx-all-paths
  neighbor 2001:db8:101::2 activate
  neighbor 2001:db8:101::2 route-map FROM-PEERS in
  neighbor 198.18.102.3 activate
  neighbor 198.18.102.3 route-map FROM-PEERS in
  neighbor 2001:db8:102::3 activate
  neighbor 2001:db8:102::3 route-map FROM-PEERS in
  neighbor 2001:db8:102::3 addpath-tx-all-paths
 exit-address-family
!
EOF
}

frr_zebra_conf() { # $1 = FRR work dir
  cat <<EOF
hostname frr-cap
log file $1/zebra.log informational
!
EOF
}

# GoBGP: routes come from `gobgp global rib add` (see gobgp_routes); the export policy adds what
# the CLI cannot set: extended communities and a prepend (an AS_PATH given to `rib add` would
# contain our own AS and fall to the import policy, which also sees local routes).
gobgp_conf() {
  cat <<'EOF'
[global.config]
  as = 4200000002
  router-id = "198.18.101.2"
  port = 179
  [global.apply-policy.config]
    export-policy-list = ["rich-ext-communities"]
    default-export-policy = "accept-route"
    import-policy-list = ["from-peers"]
    default-import-policy = "accept-route"

# GoBGP speaks as 4200000002 and (local-as) 65002: drop paths that already went through either.
[[defined-sets.bgp-defined-sets.as-path-sets]]
  as-path-set-name = "own"
  as-path-list = ["_4200000002_", "_65002_"]

[[policy-definitions]]
  name = "from-peers"
  [[policy-definitions.statements]]
    [policy-definitions.statements.conditions.bgp-conditions.match-as-path-set]
      as-path-set = "own"
      match-set-options = "any"
    [policy-definitions.statements.actions]
      route-disposition = "reject-route"

# A GoBGP prefix set holds one family only; the community marks the routes in both families.
[[defined-sets.bgp-defined-sets.community-sets]]
  community-set-name = "rich"
  community-list = ["65002:100"]

[[policy-definitions]]
  name = "rich-ext-communities"
  [[policy-definitions.statements]]
    [policy-definitions.statements.conditions.bgp-conditions.match-community-set]
      community-set = "rich"
      match-set-options = "any"
    [policy-definitions.statements.actions]
      route-disposition = "accept-route"
    [policy-definitions.statements.actions.bgp-actions.set-ext-community]
      options = "add"
      [policy-definitions.statements.actions.bgp-actions.set-ext-community.set-ext-community-method]
        # 4-octet AS route target in asdot (4200000002 = 64086.59906): GoBGP 3.10 parses a plain
        # "rt:4200000002:100" as a 2-octet AS one and saturates the AS to 65535
        communities-list = ["rt:64086.59906:100", "rt:65002:200", "soo:198.18.101.2:7"]
    [policy-definitions.statements.actions.bgp-actions.set-as-path-prepend]
      as = "4200000002"
      repeat-n = 2

# S1: FRR connects; add-path both ways; graceful restart with both families
[[neighbors]]
  [neighbors.config]
    neighbor-address = "198.18.101.1"
    peer-as = 4200000001
  [neighbors.timers.config]
    hold-time = 9
    keepalive-interval = 3
    connect-retry = 2
  [neighbors.transport.config]
    passive-mode = true
  [neighbors.add-paths.config]
    receive = true
    send-max = 4
  [neighbors.graceful-restart.config]
    enabled = true
    restart-time = 90
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true

# S2: 2-octet ASNs (local-as 65002) over IPv6; FRR connects
[[neighbors]]
  [neighbors.config]
    neighbor-address = "2001:db8:101::1"
    peer-as = 65001
    local-as = 65002
  [neighbors.timers.config]
    hold-time = 9
    keepalive-interval = 3
    connect-retry = 2
  [neighbors.transport.config]
    passive-mode = true
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"

# S7: iBGP towards FRR (route reflector) from the secondary address
[[neighbors]]
  [neighbors.config]
    neighbor-address = "198.18.101.11"
    peer-as = 4200000001
    local-as = 4200000001
  [neighbors.timers.config]
    hold-time = 9
    keepalive-interval = 3
    connect-retry = 2
  [neighbors.transport.config]
    local-address = "198.18.101.12"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"

# S9: FRR expects the wrong AS from us; passive so FRR's connects are the only ones
[[neighbors]]
  [neighbors.config]
    neighbor-address = "198.18.101.21"
    peer-as = 4200000001
  [neighbors.timers.config]
    hold-time = 9
    keepalive-interval = 3
    connect-retry = 2
  [neighbors.transport.config]
    passive-mode = true
    local-address = "198.18.101.22"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"

# S5: 2-octet ASNs towards BIRD (which has AS4 off); GoBGP connects, later shuts it down with a message
[[neighbors]]
  [neighbors.config]
    neighbor-address = "198.18.103.3"
    peer-as = 65003
    local-as = 65002
  [neighbors.timers.config]
    hold-time = 9
    keepalive-interval = 3
    connect-retry = 2
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"

# S6: 4-octet over IPv6 towards BIRD, IPv6 and IPv4 unicast (IPv4 with IPv6 next hops, RFC 8950);
# BIRD connects; add-path, GR + LLGR
[[neighbors]]
  [neighbors.config]
    neighbor-address = "2001:db8:103::3"
    peer-as = 4200000003
  [neighbors.timers.config]
    hold-time = 9
    keepalive-interval = 3
    connect-retry = 2
  [neighbors.transport.config]
    passive-mode = true
  [neighbors.add-paths.config]
    receive = true
    send-max = 4
  [neighbors.graceful-restart.config]
    enabled = true
    restart-time = 90
    long-lived-enabled = true
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
    [neighbors.afi-safis.long-lived-graceful-restart.config]
      enabled = true
      restart-time = 300
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
    [neighbors.afi-safis.long-lived-graceful-restart.config]
      enabled = true
      restart-time = 300
EOF
}

# One `gobgp global rib add` argument list per line: "<family> <prefix> [attributes...]".
gobgp_routes() {
  cat <<'EOF'
ipv4 198.19.2.0/24
ipv4 198.19.12.0/24 origin egp med 20 community 65002:100,65002:200 large-community 4200000002:1:2,4200000002:3:4
ipv4 198.19.24.0/21 aggregator 4200000002:198.18.101.2
ipv4 198.19.34.0/24
ipv4 198.19.42.0/24
ipv4 198.19.50.0/24
ipv4 198.19.51.0/24 identifier 1 med 10
ipv4 198.19.51.0/24 identifier 2 med 20
ipv6 2001:db8:f02::/48
ipv6 2001:db8:f12::/48 origin egp med 20 community 65002:100,65002:200 large-community 4200000002:1:2,4200000002:3:4
ipv6 2001:db8:f34::/48
ipv6 2001:db8:f42::/48
ipv6 2001:db8:f50::/48
EOF
}

BIG_COMMUNITIES=1100   # x 4 octets: the UPDATE needs RFC 8654 extended messages

bird_conf() { # $1 = BIRD work dir
  cat <<EOF
log "$1/bird.log" all;
router id 198.18.102.3;
hostname "bird-cap";

protocol device { scan time 10; }

protocol static static4 {
  ipv4;
  route 198.19.3.0/24 unreachable;
  route 198.19.13.0/24 unreachable;
  route 198.19.35.0/24 unreachable;
  route 198.19.50.0/24 unreachable;
  route 198.19.60.0/24 unreachable;
}
protocol static static6 {
  ipv6;
  route 2001:db8:f03::/48 unreachable;
  route 2001:db8:f13::/48 unreachable;
  route 2001:db8:f35::/48 unreachable;
  route 2001:db8:f50::/48 unreachable;
}
# Disabled during the run to make BIRD send withdrawals.
protocol static withdraw4 { ipv4; route 198.19.43.0/24 unreachable; }
protocol static withdraw6 { ipv6; route 2001:db8:f43::/48 unreachable; }

# Our own routes come back through other ASes (4-octet and 2-octet identities): drop them.
filter from_peers {
  if bgp_path ~ [= * 4200000003 * =] || bgp_path ~ [= * 65003 * =] then reject;
  accept;
}

# A prefix set holds one family only, hence the type test.
function is_rich() {
  if net.type = NET_IP4 then return net ~ [ 198.19.13.0/24 ];
  return net ~ [ 2001:db8:f13::/48 ];
}

function rich_attributes() {
  if is_rich() then {
    bgp_origin = ORIGIN_EGP;
    bgp_med = 30;
    bgp_community.add((65003, 100));
    bgp_community.add((65003, 200));
    bgp_ext_community.add((rt, 4200000003, 100));
    bgp_ext_community.add((rt, 65003, 200));
    bgp_ext_community.add((ro, 198.18.102.3, 7));
    bgp_large_community.add((4200000003, 1, 2));
    bgp_large_community.add((4200000003, 3, 4));
    bgp_path.prepend(4200000003);
    bgp_path.prepend(4200000003);
  }
}

# 198.19.60.0/24 goes only to FRR over IPv6 (S4), where RFC 8654 extended messages are
# negotiated: $BIG_COMMUNITIES communities make its UPDATE longer than 4096 octets. NO_ADVERTISE
# keeps FRR from passing it on to peers that could not take it.
function is_big() {
  return net.type = NET_IP4 && net ~ [ 198.19.60.0/24 ];
}

function big_attributes() {
  bgp_community.add((65535, 65282));
$(for ((i = 1; i <= BIG_COMMUNITIES; i++)); do echo "  bgp_community.add((65003, $i));"; done)
}

filter to_frr_v6 {
  if source = RTS_STATIC && is_big() then { big_attributes(); accept; }
  if source = RTS_STATIC then { rich_attributes(); accept; }
  if source = RTS_BGP then accept;
  reject;
}

filter to_ebgp {
  if is_big() then reject;
  if source = RTS_STATIC then { rich_attributes(); accept; }
  if source = RTS_BGP then accept;
  reject;
}

filter to_ibgp {
  if is_big() then reject;
  if source = RTS_STATIC then { rich_attributes(); bgp_local_pref = 150; accept; }
  if source = RTS_BGP then accept;
  reject;
}

template bgp common {
  hold time 9;
  keepalive time 3;
  connect delay time 1;
  connect retry time 3;
  error wait time 1, 5;
  graceful restart on;
  long lived graceful restart on;
  enable extended messages on;
  advertise hostname on;
}

# S3: AS4 off, 2-octet identity 65003 (4-octet ASNs in paths become AS_TRANS + AS4_PATH); BIRD connects
protocol bgp frr_v4 from common {
  local 198.18.102.3 as 65003;
  neighbor 198.18.102.1 as 65001;   # FRR's local-as on this session
  enable as4 off;
  local role customer;
  ipv4 { import filter from_peers; export filter to_ebgp; };
  ipv6 { import filter from_peers; export filter to_ebgp; next hop address 2001:db8:102::3; };
}

# S4: IPv6 transport carrying IPv4 with an IPv6 next hop (RFC 8950), add-path both ways; BIRD connects
protocol bgp frr_v6 from common {
  local 2001:db8:102::3 as 4200000003;
  neighbor 2001:db8:102::1 as 4200000001;
  ipv4 { import filter from_peers; export filter to_frr_v6; extended next hop on; add paths on; };
  ipv6 { import filter from_peers; export filter to_frr_v6; add paths on; };
}

# S8: iBGP with FRR as route reflector; FRR connects
protocol bgp frr_ibgp from common {
  local 198.18.102.13 as 4200000001;
  neighbor 198.18.102.11 as 4200000001;
  direct;
  passive on;
  ipv4 { import all; export filter to_ibgp; next hop self; };
}

# S5: 2-octet ASNs and AS4 off, so GoBGP must send AS_TRANS + AS4_PATH too; GoBGP connects
protocol bgp gobgp_v4 from common {
  local 198.18.103.3 as 65003;
  neighbor 198.18.103.2 as 65002;
  enable as4 off;
  passive on;
  ipv4 { import filter from_peers; export filter to_ebgp; };
}

# S6: 4-octet over IPv6, IPv6 and IPv4 (RFC 8950 next hops), add-path; BIRD connects
protocol bgp gobgp_v6 from common {
  local 2001:db8:103::3 as 4200000003;
  neighbor 2001:db8:103::2 as 4200000002;
  ipv4 { import filter from_peers; export filter to_ebgp; extended next hop on; add paths on; };
  ipv6 { import filter from_peers; export filter to_ebgp; add paths on; };
}
EOF
}
