#!/usr/bin/env python3
"""Turn the pcaps of capture.sh into BGP fixture files, one per session.

For every TCP connection on port 179 the payload of each direction is put back together by
sequence number (tshark with TCP reassembly off, one row per segment), split into BGP messages
by the header's length field (RFC 4271 4.1: 16 x 0xff marker, u16 length, u8 type) and merged
across directions by capture time. The first connection of a session that carries both OPENs
becomes fixtures/bgp/<session>.json. Every marker and length is checked; the count of messages
and of path attribute type codes per connection is compared with tshark's own BGP dissector.

Usage: extract.py --sessions sessions.json --pcaps DIR --versions frr=X,gobgp=Y,bird=Z
                  --made-by PATH --out DIR
"""

import argparse
import collections
import glob
import ipaddress
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
import bgpnotes  # noqa: E402

KEEPALIVES_PER_DIRECTION = 3
TSHARK_FIELDS = [
    "frame.time_epoch", "tcp.stream", "ip.src", "ipv6.src", "tcp.srcport", "ip.dst", "ipv6.dst",
    "tcp.dstport", "tcp.seq_raw", "tcp.flags.syn", "tcp.payload",
]


def fail(msg):
    print(f"extract.py: ERROR: {msg}", file=sys.stderr)
    sys.exit(1)


def warn(msg):
    print(f"extract.py: warning: {msg}", file=sys.stderr)


def norm_addr(text):
    return str(ipaddress.ip_address(text))


def tshark_rows(pcap):
    """One dict per TCP segment, in capture order."""
    cmd = ["tshark", "-r", pcap, "-n", "-o", "tcp.desegment_tcp_streams:FALSE", "-Y", "tcp",
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(TSHARK_FIELDS) - len(cols))
        row = dict(zip(TSHARK_FIELDS, cols))
        yield {
            "time": float(row["frame.time_epoch"]),
            "stream": int(row["tcp.stream"]),
            "src": (norm_addr(row["ip.src"] or row["ipv6.src"]), int(row["tcp.srcport"])),
            "dst": (norm_addr(row["ip.dst"] or row["ipv6.dst"]), int(row["tcp.dstport"])),
            "seq": int(row["tcp.seq_raw"]),
            "syn": row["tcp.flags.syn"] in ("1", "True"),
            "payload": bytes.fromhex(row["tcp.payload"].replace(":", "")),
        }


def reassemble(segments):
    """Bytes of one direction in sequence order, with the capture time each byte arrived.

    Segments are placed by raw sequence number relative to the SYN (or the first data segment);
    retransmitted bytes are skipped, a hole ends the stream with a warning."""
    isn = None
    for s in segments:
        if s["syn"]:
            isn = (s["seq"] + 1) & 0xFFFFFFFF
            break
    data = [s for s in segments if s["payload"]]
    if not data:
        return b"", []
    if isn is None:
        isn = data[0]["seq"]
    data.sort(key=lambda s: ((s["seq"] - isn) & 0xFFFFFFFF, s["time"]))
    buf = bytearray()
    times = []  # (end offset, time) per appended chunk
    for s in data:
        off = (s["seq"] - isn) & 0xFFFFFFFF
        if off > len(buf):
            warn(f"hole in TCP stream at offset {len(buf)} (next segment at {off}); stream cut there")
            break
        new = s["payload"][len(buf) - off:]
        if new:
            buf += new
            times.append((len(buf), s["time"]))
    return bytes(buf), times


def time_at(times, offset):
    """Capture time of the segment that delivered byte `offset`."""
    for end, t in times:
        if offset < end:
            return t
    return times[-1][1]


def split_messages(buf, times, where):
    msgs = []
    off = 0
    while off < len(buf):
        if len(buf) - off < bgpnotes.HEADER_LEN:
            warn(f"{where}: {len(buf) - off} trailing bytes (connection cut mid-header)")
            break
        if buf[off:off + 16] != b"\xff" * 16:
            fail(f"{where}: bad BGP marker at stream offset {off}: {buf[off:off + 16].hex()}")
        length = int.from_bytes(buf[off + 16:off + 18], "big")
        if length < bgpnotes.HEADER_LEN or length > bgpnotes.MAX_EXTENDED_LEN:
            fail(f"{where}: bad BGP length {length} at stream offset {off}")
        if off + length > len(buf):
            warn(f"{where}: last message truncated ({len(buf) - off} of {length} bytes)")
            break
        raw = buf[off:off + length]
        msgs.append({"raw": raw, "time": time_at(times, off + length - 1)})
        off += length
    return msgs


def connections(pcap):
    """Per tcp.stream: the two directions as (address, port) -> list of messages."""
    by_stream = collections.OrderedDict()
    for row in tshark_rows(pcap):
        st = by_stream.setdefault(row["stream"], {"first": row["time"], "dirs": collections.OrderedDict()})
        st["dirs"].setdefault(row["src"], []).append(row)
    result = []
    for stream, st in by_stream.items():
        dirs = {}
        for src, segs in st["dirs"].items():
            buf, times = reassemble(segs)
            dirs[src] = split_messages(buf, times, f"{os.path.basename(pcap)} stream {stream} from {src[0]}")
        result.append({"pcap": pcap, "stream": stream, "first": st["first"], "dirs": dirs})
    return result


def tshark_counts(pcap):
    """tshark's own view (TCP reassembly on): per stream, count of BGP message types and of
    path attribute type codes."""
    cmd = ["tshark", "-r", pcap, "-n", "-Y", "bgp", "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=,", "-e", "tcp.stream", "-e", "bgp.type",
           "-e", "bgp.update.path_attribute.type_code"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    counts = collections.defaultdict(collections.Counter)
    for line in out.splitlines():
        cols = (line.split("\t") + ["", "", ""])[:3]
        stream = int(cols[0])
        for t in filter(None, cols[1].split(",")):
            counts[stream][("type", int(t))] += 1
        for a in filter(None, cols[2].split(",")):
            counts[stream][("attr", int(a))] += 1
    return counts


def own_counts(conn):
    """Same counts from our splitter. tshark 4.0 rejects messages longer than 4096 octets
    ("Length is invalid") although RFC 8654 allows them, so those are counted apart."""
    c = collections.Counter()
    for msgs in conn["dirs"].values():
        for m in msgs:
            if len(m["raw"]) > bgpnotes.MAX_LEN:
                c[("extended-length", m["raw"][18])] += 1
                continue
            c[("type", m["raw"][18])] += 1
            if m["raw"][18] == bgpnotes.MSG_UPDATE:
                for code in bgpnotes.attribute_codes(m["raw"]):
                    c[("attr", code)] += 1
    return c


def has_open(msgs):
    return any(m["raw"][18] == bgpnotes.MSG_OPEN for m in msgs)


def build_fixture(session, conn, versions, made_by):
    addr = {side: norm_addr(session[side]["address"]) for side in ("a", "b")}
    side_of = {}
    for src in conn["dirs"]:
        for side in ("a", "b"):
            if src[0] == addr[side]:
                side_of[src] = side
    opens = {}
    for src, msgs in conn["dirs"].items():
        for m in msgs:
            if m["raw"][18] == bgpnotes.MSG_OPEN:
                opens[side_of[src]] = m["raw"]
                break
    ctx = {
        "a": bgpnotes.direction_context(opens["a"], opens["b"]),
        "b": bgpnotes.direction_context(opens["b"], opens["a"]),
    }
    merged = []
    for src, msgs in conn["dirs"].items():
        side = side_of[src]
        keepalives = 0
        latest = 0.0
        for seq, m in enumerate(msgs):
            # one direction stays in wire order even if capture times were to step back
            latest = max(latest, m["time"])
            if m["raw"][18] == bgpnotes.MSG_KEEPALIVE:
                keepalives += 1
                if keepalives > KEEPALIVES_PER_DIRECTION:
                    continue
            merged.append((latest, 0 if side == "a" else 1, seq, side, m["raw"]))
    # Capture time across directions; within one direction wire order (times never decrease).
    merged.sort(key=lambda x: (x[0], x[1], x[2]))
    messages = []
    for _t, _o, _s, side, raw in merged:
        entry = {"from": side, "type": bgpnotes.type_name(raw[18]), "hex": raw.hex()}
        note = bgpnotes.describe(raw, ctx[side])
        if note:
            entry["note"] = note
        messages.append(entry)
    endpoints = {}
    for side in ("a", "b"):
        e = session[side]
        endpoints[side] = {"impl": e["impl"], "version": versions[e["impl"]], "address": e["address"], "as": e["as"]}
    return {
        "name": session["name"],
        "made_by": made_by,
        "description": session["description"],
        "endpoints": endpoints,
        "messages": messages,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", required=True)
    ap.add_argument("--pcaps", required=True)
    ap.add_argument("--versions", required=True)
    ap.add_argument("--made-by", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    versions = dict(kv.split("=", 1) for kv in args.versions.split(","))
    sessions = json.load(open(args.sessions))["sessions"]
    by_pair = {frozenset(norm_addr(s[x]["address"]) for x in ("a", "b")): s for s in sessions}

    candidates = collections.defaultdict(list)
    mismatches = 0
    checked = 0
    for pcap in sorted(glob.glob(os.path.join(args.pcaps, "*.pcap"))):
        conns = connections(pcap)
        theirs = tshark_counts(pcap)
        for conn in conns:
            checked += 1
            mine = own_counts(conn)
            extended = sum(n for k, n in mine.items() if k[0] == "extended-length")
            mine = collections.Counter({k: n for k, n in mine.items() if k[0] != "extended-length"})
            if extended:
                print(f"extract.py: {os.path.basename(pcap)} stream {conn['stream']}: {extended} message(s) over "
                      f"{bgpnotes.MAX_LEN} octets (RFC 8654), not compared with tshark", file=sys.stderr)
            if mine != theirs.get(conn["stream"], collections.Counter()):
                mismatches += 1
                warn(f"{os.path.basename(pcap)} stream {conn['stream']}: tshark counts {dict(theirs.get(conn['stream'], {}))} "
                     f"!= ours {dict(mine)}")
            pair = frozenset(src[0] for src in conn["dirs"])
            session = by_pair.get(pair)
            label = f"{os.path.basename(pcap)} stream {conn['stream']} ({' <-> '.join(sorted(pair))})"
            if session is None:
                warn(f"{label}: no session for this address pair, ignored")
                continue
            if len(conn["dirs"]) == 2 and all(has_open(m) for m in conn["dirs"].values()):
                candidates[session["name"]].append(conn)
            else:
                n = sum(len(m) for m in conn["dirs"].values())
                print(f"extract.py: {label}: {n} BGP messages, not both OPENs: skipped", file=sys.stderr)

    print(f"extract.py: tshark's BGP dissector agrees with the splitter on {checked - mismatches} of {checked} "
          "connections", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    missing = []
    for session in sessions:
        conns = sorted(candidates.get(session["name"], []), key=lambda c: c["first"])
        if not conns:
            (missing if session["required"] else []).append(session["name"])
            warn(f"{session['name']}: no connection with both OPENs")
            continue
        if len(conns) > 1:
            print(f"extract.py: {session['name']}: {len(conns)} connections with both OPENs, keeping the first",
                  file=sys.stderr)
        fixture = build_fixture(session, conns[0], versions, args.made_by)
        with open(os.path.join(args.out, session["name"] + ".json"), "w") as f:
            json.dump(fixture, f, indent=2, ensure_ascii=False)
            f.write("\n")
        kinds = collections.Counter(m["type"] for m in fixture["messages"])
        print(f"extract.py: {session['name']}: {dict(kinds)}", file=sys.stderr)
    if mismatches:
        fail(f"{mismatches} connection(s) where tshark and the splitter disagree")
    if missing:
        fail(f"required sessions without a usable connection: {', '.join(missing)}")


if __name__ == "__main__":
    main()
