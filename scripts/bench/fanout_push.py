#!/usr/bin/env python3
"""One push to channel `all` (or $CHANNEL) of the app `bench`, for scripts/bench-fanout, scripts/bench-fanout-ab and
scripts/bench-vendors.

  [CHANNEL=all] fanout_push.py PORT SERVER_PID POSTMASTER_PID[,POSTMASTER_PID…] SIMULATOR_PID
  -> "WALL SUCCESSES,DEVICES,ERRORS PEAK_RSS_KIB SERVER_US,POSTGRES_US,SIMULATOR_US,DRIVERS_US"

Posts the push, polls its record every 0.1 s (and the server's peak RSS) until it leaves "in-queue", and
reads the CPU time the push cost the server, PostgreSQL (the postmaster, its live backends and those that
ended; of every cluster given, the nodes of a Citus cluster together) and the simulator per delivered device,
and the server's part spent by its transport's drivers (the threads named curl-driver or h2-driver: the HTTP/2
library, TLS and framing, what the library's own ceiling program does too).
One Python process does it all: a fresh interpreter per poll cost ~0.1 s of CPU each where python3 is a
pyenv shim, a fifth of a core taken from the push it measures.
"""
import json, os, sys, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import TCK, postgres_ticks, proc_stat, thread_ticks  # noqa: E402

port, server, simulator = sys.argv[1], int(sys.argv[2]), int(sys.argv[4])
postmasters = [int(pid) for pid in sys.argv[3].split(",")]


def cpu():
    return (proc_stat(server)[1] / TCK, sum(postgres_ticks(pid) for pid in postmasters) / TCK,
            proc_stat(simulator)[1] / TCK,
            (thread_ticks(server, "curl-driver") + thread_ticks(server, "h2-driver")) / TCK)


headers = {"X-LC-Id": "bench", "X-LC-Key": "benchmaster,master", "Content-Type": "application/json"}


def call(path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, headers=headers)
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def peak_rss():
    with open(f"/proc/{server}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))


payload = {"alert": {"title": "Bench", "body": "One push to every device"}, "sound": "default"}
before = cpu()
start = time.monotonic()
push = call("/1.1/push", json.dumps({"channels": [os.environ.get("CHANNEL", "all")], "data": payload}).encode())["objectId"]
rss = 0
while True:
    record = call(f"/1.1/notifications/{push}")
    rss = max(rss, peak_rss())
    if record["status"] != "in-queue":
        break
    time.sleep(0.1)
wall = time.monotonic() - start
split = ",".join(f"{(b - a) * 1e6 / max(record['successes'], 1):.1f}" for a, b in zip(before, cpu()))
print(f"{wall:.2f} {record['successes']},{record['devices']},{record['errors']} {rss} {split}")
