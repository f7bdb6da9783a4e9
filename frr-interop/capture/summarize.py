#!/usr/bin/env python3
"""Print a Markdown summary of fixtures/bgp/*.json: per file and sender, the message types,
OPEN capabilities, UPDATE path attributes and special cases seen. Used to write
fixtures/README.md and to check a fresh capture at a glance.

Usage: summarize.py [FIXTURE_DIR]   (default: fixtures/bgp next to this repository's root)
"""

import collections
import glob
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
import bgpnotes  # noqa: E402


def sender_summary(fixture, side, ctx):
    kinds = collections.Counter()
    caps = []
    attrs = set()
    special = []
    for m in fixture["messages"]:
        if m["from"] != side:
            continue
        raw = bytes.fromhex(m["hex"])
        kinds[m["type"]] += 1
        note = m.get("note") or ""
        if raw[18] == bgpnotes.MSG_OPEN:
            caps = sorted({bgpnotes.CAP_NAMES.get(c, f"cap-{c}") for c, _ in bgpnotes.open_capabilities(raw)})
        elif raw[18] == bgpnotes.MSG_UPDATE:
            withdrawn, parsed, nlri = bgpnotes.attributes(raw)
            attrs.update(bgpnotes.ATTR_NAMES.get(code, f"attr-{code}") for _f, code, _v in parsed)
            if note.startswith("End-of-RIB"):
                special.append(note)
            if withdrawn:
                special.append("withdrawn routes")
            if len(raw) > bgpnotes.MAX_LEN:
                special.append(f"{len(raw)}-octet UPDATE")
            for _f, code, v in parsed:
                if code == 14:
                    afi, nhl = int.from_bytes(v[0:2], "big"), v[3]
                    if afi == bgpnotes.AFI_IPV4 and nhl in (16, 32):
                        special.append("IPv4 NLRI with IPv6 next hop")
                    if nhl == 32:
                        special.append("global + link-local next hop")
            if ctx["path_ids"] and (nlri or any(c in (14, 15) for _f, c, _v in parsed)):
                special.append("ADD-PATH path ids")
            if "AS_PATH [" in note and "{" in note.split("AS_PATH [", 1)[1].split("]", 1)[0]:
                special.append("AS_SET")
        elif raw[18] == bgpnotes.MSG_ROUTE_REFRESH:
            special.append("ROUTE-REFRESH " + note.split(" ", 1)[1])
        elif raw[18] == bgpnotes.MSG_NOTIFICATION:
            special.append("NOTIFICATION " + note.split(",")[0] + (" + message" if "communication" in note else ""))
    uniq = list(dict.fromkeys(special))
    return kinds, caps, sorted(attrs, key=lambda a: list(bgpnotes.ATTR_NAMES.values()).index(a)
                               if a in bgpnotes.ATTR_NAMES.values() else 999), uniq


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "fixtures", "bgp")
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        fixture = json.load(open(path))
        opens = {}
        for m in fixture["messages"]:
            if m["type"] == "OPEN":
                opens.setdefault(m["from"], bytes.fromhex(m["hex"]))
        print(f"### {os.path.basename(path)}\n")
        print(fixture["description"] + "\n")
        for side in ("a", "b"):
            other = "b" if side == "a" else "a"
            ctx = bgpnotes.direction_context(opens[side], opens[other])
            kinds, caps, attrs, special = sender_summary(fixture, side, ctx)
            e = fixture["endpoints"][side]
            print(f"- **{e['impl']}** ({e['address']}, AS {e['as']}): "
                  + ", ".join(f"{n} {k}" for k, n in kinds.items()))
            print(f"  - capabilities: {', '.join(caps)}")
            if attrs:
                print(f"  - attributes: {', '.join(attrs)}")
            if special:
                print(f"  - also: {'; '.join(special)}")
        print()


if __name__ == "__main__":
    main()
