"""Short human-readable summaries of captured BGP messages (the "note" of each fixture entry).

Only what a reviewer needs to see what a message holds: capabilities of an OPEN, attributes and
prefixes of an UPDATE, code/subcode (and RFC 9003 text) of a NOTIFICATION, the subtype of a
ROUTE-REFRESH. Parsing follows RFC 4271 4, RFC 4760, RFC 6793, RFC 7911 and RFC 8950; anything
unexpected is shown as hex rather than raising.
"""

import ipaddress

HEADER_LEN = 19
MAX_LEN = 4096  # RFC 4271 4.1
MAX_EXTENDED_LEN = 65535  # RFC 8654

MSG_OPEN, MSG_UPDATE, MSG_NOTIFICATION, MSG_KEEPALIVE, MSG_ROUTE_REFRESH = 1, 2, 3, 4, 5
MSG_NAMES = {1: "OPEN", 2: "UPDATE", 3: "NOTIFICATION", 4: "KEEPALIVE", 5: "ROUTE-REFRESH"}

AFI_IPV4, AFI_IPV6 = 1, 2
SAFI_UNICAST = 1
AFI_NAMES = {1: "ipv4", 2: "ipv6"}
SAFI_NAMES = {1: "unicast", 2: "multicast"}

CAP_MP, CAP_RR, CAP_EXT_NH, CAP_EXT_MSG, CAP_ROLE = 1, 2, 5, 6, 9
CAP_GR, CAP_AS4, CAP_ADD_PATH, CAP_ERR, CAP_LLGR, CAP_FQDN, CAP_RR_OLD = 64, 65, 69, 70, 71, 73, 128
CAP_NAMES = {
    CAP_MP: "MP", CAP_RR: "route-refresh", CAP_EXT_NH: "extended-nexthop", CAP_EXT_MSG: "extended-message",
    CAP_ROLE: "role", CAP_GR: "graceful-restart", CAP_AS4: "AS4", CAP_ADD_PATH: "add-path",
    CAP_ERR: "enhanced-route-refresh", CAP_LLGR: "LLGR", CAP_FQDN: "FQDN", CAP_RR_OLD: "route-refresh(old 128)",
}
ROLE_NAMES = {0: "provider", 1: "rs", 2: "rs-client", 3: "customer", 4: "peer"}
ADD_PATH_MODES = {1: "rx", 2: "tx", 3: "rx+tx"}

ATTR_NAMES = {
    1: "ORIGIN", 2: "AS_PATH", 3: "NEXT_HOP", 4: "MED", 5: "LOCAL_PREF", 6: "ATOMIC_AGGREGATE",
    7: "AGGREGATOR", 8: "COMMUNITIES", 9: "ORIGINATOR_ID", 10: "CLUSTER_LIST", 14: "MP_REACH_NLRI",
    15: "MP_UNREACH_NLRI", 16: "EXTENDED_COMMUNITIES", 17: "AS4_PATH", 18: "AS4_AGGREGATOR",
    26: "AIGP", 32: "LARGE_COMMUNITY", 35: "OTC", 128: "ATTR_SET",
}
ORIGINS = {0: "IGP", 1: "EGP", 2: "INCOMPLETE"}
WELL_KNOWN_COMMUNITIES = {
    0xFFFF0000: "graceful-shutdown", 0xFFFF0006: "llgr-stale", 0xFFFF0007: "no-llgr",
    0xFFFF029A: "blackhole", 0xFFFFFF01: "no-export", 0xFFFFFF02: "no-advertise",
    0xFFFFFF03: "no-export-subconfed", 0xFFFFFF04: "no-peer",
}
NOTIFICATION_CODES = {
    1: ("Message Header Error", {1: "Connection Not Synchronized", 2: "Bad Message Length", 3: "Bad Message Type"}),
    2: ("OPEN Message Error", {1: "Unsupported Version Number", 2: "Bad Peer AS", 3: "Bad BGP Identifier",
                               4: "Unsupported Optional Parameter", 6: "Unacceptable Hold Time",
                               7: "Unsupported Capability", 11: "Role Mismatch"}),
    3: ("UPDATE Message Error", {1: "Malformed Attribute List", 3: "Missing Well-known Attribute",
                                 5: "Attribute Length Error", 11: "Malformed AS_PATH"}),
    4: ("Hold Timer Expired", {}),
    5: ("Finite State Machine Error", {}),
    6: ("Cease", {1: "Maximum Number of Prefixes Reached", 2: "Administrative Shutdown", 3: "Peer De-configured",
                  4: "Administrative Reset", 5: "Connection Rejected", 6: "Other Configuration Change",
                  7: "Connection Collision Resolution", 8: "Out of Resources", 9: "Hard Reset",
                  10: "BFD Down"}),
    7: ("ROUTE-REFRESH Message Error", {1: "Invalid Message Length"}),
}
RR_SUBTYPES = {0: "request", 1: "BoRR", 2: "EoRR"}
PREFIXES_SHOWN = 4
ITEMS_SHOWN = 8  # communities and the like


def items_text(items, sep=" "):
    more = len(items) - ITEMS_SHOWN
    return sep.join(items[:ITEMS_SHOWN]) + (f" +{more} more" if more > 0 else "")


def type_name(t):
    return MSG_NAMES.get(t, f"type-{t}")


def af(afi, safi):
    return f"{AFI_NAMES.get(afi, afi)}/{SAFI_NAMES.get(safi, safi)}"


def ip_text(b):
    if len(b) == 4:
        return str(ipaddress.IPv4Address(b))
    if len(b) == 16:
        return str(ipaddress.IPv6Address(b))
    return b.hex()


# --- OPEN ------------------------------------------------------------------------------------

def open_capabilities(raw):
    """[(code, value bytes)] of an OPEN, from capability optional parameters (RFC 5492),
    including the RFC 9072 extended optional parameters length form."""
    body = raw[HEADER_LEN:]
    opt_len = body[9]
    params = body[10:10 + opt_len]
    ext = False
    if opt_len == 255 and len(body) > 10 and body[10] == 255:  # RFC 9072
        ext = True
        opt_len = int.from_bytes(body[11:13], "big")
        params = body[13:13 + opt_len]
    caps = []
    i = 0
    while i < len(params):
        ptype = params[i]
        if ext:
            plen = int.from_bytes(params[i + 1:i + 3], "big")
            pval = params[i + 3:i + 3 + plen]
            i += 3 + plen
        else:
            plen = params[i + 1]
            pval = params[i + 2:i + 2 + plen]
            i += 2 + plen
        if ptype != 2:
            continue
        j = 0
        while j + 2 <= len(pval):
            code, clen = pval[j], pval[j + 1]
            caps.append((code, pval[j + 2:j + 2 + clen]))
            j += 2 + clen
    return caps


def cap_text(code, v):
    name = CAP_NAMES.get(code, f"cap-{code}")
    try:
        if code == CAP_MP:
            return f"MP {af(int.from_bytes(v[0:2], 'big'), v[3])}"
        if code == CAP_AS4:
            return f"AS4 {int.from_bytes(v, 'big')}"
        if code == CAP_ADD_PATH:
            items = [f"{af(int.from_bytes(v[k:k + 2], 'big'), v[k + 2])} {ADD_PATH_MODES.get(v[k + 3], v[k + 3])}"
                     for k in range(0, len(v) - 3, 4)]
            return "add-path " + ", ".join(items)
        if code == CAP_EXT_NH:
            items = [f"{af(int.from_bytes(v[k:k + 2], 'big'), int.from_bytes(v[k + 2:k + 4], 'big'))}"
                     f" via {AFI_NAMES.get(int.from_bytes(v[k + 4:k + 6], 'big'))}" for k in range(0, len(v) - 5, 6)]
            return "extended-nexthop " + ", ".join(items)
        if code == CAP_GR:
            flags, time = v[0] >> 4, int.from_bytes(v[0:2], "big") & 0x0FFF
            bits = "".join(b for b, m in (("R", 8), ("N", 4)) if flags & m)
            afs = [f"{af(int.from_bytes(v[k:k + 2], 'big'), v[k + 2])}{' F' if v[k + 3] & 0x80 else ''}"
                   for k in range(2, len(v) - 3, 4)]
            return f"graceful-restart time {time}{' flags ' + bits if bits else ''}" + (f" [{', '.join(afs)}]" if afs else "")
        if code == CAP_LLGR:
            afs = [f"{af(int.from_bytes(v[k:k + 2], 'big'), v[k + 2])} stale {int.from_bytes(v[k + 4:k + 7], 'big')}"
                   for k in range(0, len(v) - 6, 7)]
            return "LLGR " + ", ".join(afs)
        if code == CAP_FQDN:
            hl = v[0]
            host = v[1:1 + hl].decode("utf-8", "replace")
            dl = v[1 + hl]
            dom = v[2 + hl:2 + hl + dl].decode("utf-8", "replace")
            return f"FQDN {host}" + (f".{dom}" if dom else "")
        if code == CAP_ROLE:
            return f"role {ROLE_NAMES.get(v[0], v[0])}"
        return f"{name} {v.hex()}" if v else name
    except IndexError:
        return f"{name} (malformed {v.hex()})"


def direction_context(own_open, peer_open):
    """What governs the encoding of messages sent by the owner of `own_open`."""
    own = open_capabilities(own_open)
    peer = open_capabilities(peer_open)
    as4 = any(c == CAP_AS4 for c, _ in own) and any(c == CAP_AS4 for c, _ in peer)

    def add_path_modes(caps):
        modes = {}
        for c, v in caps:
            if c == CAP_ADD_PATH:
                for k in range(0, len(v) - 3, 4):
                    modes[(int.from_bytes(v[k:k + 2], "big"), v[k + 2])] = v[k + 3]
        return modes

    own_modes, peer_modes = add_path_modes(own), add_path_modes(peer)
    # RFC 7911 4: path identifiers are sent when the sender said "send" and the receiver "receive".
    path_ids = {k for k, m in own_modes.items() if m & 2 and peer_modes.get(k, 0) & 1}
    return {"as4": as4, "path_ids": path_ids}


def describe_open(raw):
    body = raw[HEADER_LEN:]
    my_as = int.from_bytes(body[1:3], "big")
    hold = int.from_bytes(body[3:5], "big")
    bgp_id = ip_text(body[5:9])
    caps = [cap_text(c, v) for c, v in open_capabilities(raw)]
    return f"version {body[0]}, my AS {my_as}, hold {hold}, id {bgp_id}; capabilities: " + "; ".join(caps)


# --- UPDATE ----------------------------------------------------------------------------------

def parse_prefixes(b, afi, path_ids):
    out = []
    i = 0
    while i < len(b):
        pid = None
        if path_ids:
            pid = int.from_bytes(b[i:i + 4], "big")
            i += 4
        plen = b[i]
        nbytes = (plen + 7) // 8
        width = 4 if afi == AFI_IPV4 else 16
        addr = b[i + 1:i + 1 + nbytes] + bytes(width - nbytes)
        i += 1 + nbytes
        net = f"{ip_text(addr)}/{plen}"
        out.append(f"{net} id {pid}" if pid is not None else net)
    return out


def prefixes_text(prefixes):
    shown = ", ".join(prefixes[:PREFIXES_SHOWN])
    more = len(prefixes) - PREFIXES_SHOWN
    return shown + (f" +{more} more" if more > 0 else "")


def as_path_text(v, width):
    segs = []
    i = 0
    while i + 2 <= len(v):
        stype, count = v[i], v[i + 1]
        asns = [int.from_bytes(v[i + 2 + k * width:i + 2 + (k + 1) * width], "big") for k in range(count)]
        i += 2 + count * width
        if stype == 1:
            segs.append("{" + ",".join(map(str, asns)) + "}")
        elif stype == 2:
            segs.append(" ".join(map(str, asns)))
        else:
            segs.append(f"seg{stype}(" + " ".join(map(str, asns)) + ")")
    return "[" + " ".join(segs) + "]"


def ext_community_text(e):
    t, st = e[0], e[1]
    kind = {2: "rt", 3: "soo"}.get(st)
    if kind and t in (0x00, 0x40):
        return f"{kind} {int.from_bytes(e[2:4], 'big')}:{int.from_bytes(e[4:8], 'big')}"
    if kind and t in (0x01, 0x41):
        return f"{kind} {ip_text(e[2:6])}:{int.from_bytes(e[6:8], 'big')}"
    if kind and t in (0x02, 0x42):
        return f"{kind} {int.from_bytes(e[2:6], 'big')}:{int.from_bytes(e[6:8], 'big')} (4-octet AS)"
    return e.hex()


def attributes(raw):
    """[(flags, code, value)] of an UPDATE plus the withdrawn-routes and NLRI bytes."""
    body = raw[HEADER_LEN:]
    wlen = int.from_bytes(body[0:2], "big")
    withdrawn = body[2:2 + wlen]
    alen = int.from_bytes(body[2 + wlen:4 + wlen], "big")
    abytes = body[4 + wlen:4 + wlen + alen]
    nlri = body[4 + wlen + alen:]
    attrs = []
    i = 0
    while i < len(abytes):
        flags, code = abytes[i], abytes[i + 1]
        if flags & 0x10:
            length = int.from_bytes(abytes[i + 2:i + 4], "big")
            i += 4
        else:
            length = abytes[i + 2]
            i += 3
        attrs.append((flags, code, abytes[i:i + length]))
        i += length
    return withdrawn, attrs, nlri


def attribute_codes(raw):
    return [code for _f, code, _v in attributes(raw)[1]]


def attr_text(code, v, ctx, parts):
    name = ATTR_NAMES.get(code, f"attr-{code}")
    width = 4 if ctx["as4"] else 2
    if code == 1:
        return f"ORIGIN {ORIGINS.get(v[0], v[0])}"
    if code == 2:
        return f"AS_PATH {as_path_text(v, width)}"
    if code == 17:
        return f"AS4_PATH {as_path_text(v, 4)}"
    if code == 3:
        return f"NEXT_HOP {ip_text(v)}"
    if code in (4, 5):
        return f"{name} {int.from_bytes(v, 'big')}"
    if code == 6:
        return name
    if code in (7, 18):
        w = 4 if code == 18 or len(v) == 8 else 2
        return f"{name} {int.from_bytes(v[:w], 'big')} {ip_text(v[w:])}"
    if code == 8:
        items = [WELL_KNOWN_COMMUNITIES.get(int.from_bytes(v[k:k + 4], "big"),
                                            f"{int.from_bytes(v[k:k + 2], 'big')}:{int.from_bytes(v[k + 2:k + 4], 'big')}")
                 for k in range(0, len(v), 4)]
        return f"COMMUNITIES {items_text(items)}"
    if code == 16:
        return f"EXTENDED_COMMUNITIES {items_text([ext_community_text(v[k:k + 8]) for k in range(0, len(v), 8)], ', ')}"
    if code == 32:
        items = [":".join(str(int.from_bytes(v[k + j:k + j + 4], "big")) for j in (0, 4, 8)) for k in range(0, len(v), 12)]
        return f"LARGE_COMMUNITY {items_text(items)}"
    if code == 9:
        return f"ORIGINATOR_ID {ip_text(v)}"
    if code == 10:
        return f"CLUSTER_LIST {items_text([ip_text(v[k:k + 4]) for k in range(0, len(v), 4)])}"
    if code == 35:
        return f"OTC {int.from_bytes(v, 'big')}"
    if code == 14:
        afi, safi, nhl = int.from_bytes(v[0:2], "big"), v[2], v[3]
        nh = v[4:4 + nhl]
        hops = [ip_text(nh[k:k + 16]) for k in range(0, nhl, 16)] if nhl in (16, 32) else [ip_text(nh)]
        pfx = parse_prefixes(v[5 + nhl:], afi, (afi, safi) in ctx["path_ids"])
        parts["nlri"].append(f"{af(afi, safi)} {prefixes_text(pfx)}")
        return f"MP_REACH_NLRI {af(afi, safi)} next hop {' + '.join(hops)} ({len(pfx)} prefixes)"
    if code == 15:
        afi, safi = int.from_bytes(v[0:2], "big"), v[2]
        pfx = parse_prefixes(v[3:], afi, (afi, safi) in ctx["path_ids"])
        if pfx:
            parts["withdrawn"].append(f"{af(afi, safi)} {prefixes_text(pfx)}")
        return f"MP_UNREACH_NLRI {af(afi, safi)} ({len(pfx)} prefixes)"
    return f"{name} {v.hex()}"


def describe_update(raw, ctx):
    withdrawn, attrs, nlri = attributes(raw)
    if not withdrawn and not attrs and not nlri:
        return "End-of-RIB ipv4/unicast"
    if not withdrawn and not nlri and len(attrs) == 1 and attrs[0][1] == 15 and len(attrs[0][2]) == 3:
        v = attrs[0][2]
        return f"End-of-RIB {af(int.from_bytes(v[0:2], 'big'), v[2])}"
    parts = {"nlri": [], "withdrawn": []}
    v4_ids = (AFI_IPV4, SAFI_UNICAST) in ctx["path_ids"]
    if withdrawn:
        parts["withdrawn"].append(f"ipv4/unicast {prefixes_text(parse_prefixes(withdrawn, AFI_IPV4, v4_ids))}")
    texts = [attr_text(code, v, ctx, parts) for _f, code, v in attrs]
    if nlri:
        parts["nlri"].insert(0, f"ipv4/unicast {prefixes_text(parse_prefixes(nlri, AFI_IPV4, v4_ids))}")
    out = []
    if parts["withdrawn"]:
        out.append("withdraw " + "; ".join(parts["withdrawn"]))
    if parts["nlri"]:
        out.append("announce " + "; ".join(parts["nlri"]))
    if texts:
        out.append("attributes: " + "; ".join(texts))
    return " | ".join(out)


# --- NOTIFICATION, ROUTE-REFRESH ---------------------------------------------------------------

def describe_notification(raw):
    code, sub, data = raw[19], raw[20], raw[21:]
    cname, subs = NOTIFICATION_CODES.get(code, (f"code {code}", {}))
    text = f"{cname} / {subs.get(sub, f'subcode {sub}')} ({code}/{sub})"
    if code == 6 and sub in (2, 4) and data:  # RFC 9003 2: length octet + UTF-8 message
        n = data[0]
        msg = data[1:1 + n].decode("utf-8", "replace")
        text += f", shutdown communication ({n} bytes): {msg!r}"
        rest = data[1 + n:]
        if rest:
            text += f", then {rest.hex()}"
    elif data:
        text += f", data {data.hex()}"
    return text


def describe_route_refresh(raw):
    afi, sub, safi = int.from_bytes(raw[19:21], "big"), raw[21], raw[22]
    return f"{af(afi, safi)} {RR_SUBTYPES.get(sub, f'subtype {sub}')}"


def describe(raw, ctx):
    t = raw[18]
    try:
        if t == MSG_OPEN:
            return describe_open(raw)
        if t == MSG_UPDATE:
            return describe_update(raw, ctx)
        if t == MSG_NOTIFICATION:
            return describe_notification(raw)
        if t == MSG_ROUTE_REFRESH:
            return describe_route_refresh(raw)
    except (IndexError, ValueError) as e:
        return f"(could not summarize: {e})"
    return None
