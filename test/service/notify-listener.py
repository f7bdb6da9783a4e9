#!/usr/bin/env python3
"""A service manager's end of sd_notify(3) for tests: binds a unix datagram socket (a path, or
@name in the abstract namespace), prints "ready" once bound, then one JSON line per datagram
received: {"at": monotonic seconds, "message": text}. Exits when stdin closes, or after
BOUND_S seconds at most."""
import json
import os
import select
import socket
import sys
import time

BOUND_S = 300

target = sys.argv[1]
address = "\0" + target[1:] if target.startswith("@") else target
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(address)
print("ready", flush=True)
end = time.monotonic() + BOUND_S
while time.monotonic() < end:
    readable, _, _ = select.select([sock, sys.stdin], [], [], 1.0)
    if sys.stdin in readable and not os.read(sys.stdin.fileno(), 4096):
        break
    if sock in readable:
        data = sock.recv(65536)
        print(json.dumps({"at": time.monotonic(), "message": data.decode()}), flush=True)
sock.close()
if not target.startswith("@"):
    os.unlink(target)
