"""kill -9 mid-push on a distributed database: two `serve` processes share the fan-out (as several processes on
one Citus coordinator do), one is killed a third of the way through a push, and the push still ends with every
device delivered and exact counts; what the crash makes the survivors send twice stays within the killed
process's senders × window (docs/fanout.md)."""

import json
import os
import secrets
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from conftest import APNS_TOPIC, _json_line, create_database, database_url, drop_database

DEVICES = 3000
# `serve`'s default senders and window (4 × 500): what one killed process can have sent and not recorded.
DUPLICATE_BOUND = 4 * 500


def serve(binary, url, log):
    proc = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--batch-lease-seconds", "3"],
        stdout=subprocess.PIPE, stderr=open(log, "w"), text=True, env=dict(os.environ, DATABASE_URL=url))
    listening = _json_line(proc, "listening")
    assert listening is not None, open(log).read()[-3000:]
    return proc, "http://127.0.0.1:%d/1.1" % listening["port"]


def test_kill_9_mid_push_keeps_every_count_exact(server, simulator, tmp_path):
    name = "pushledger_crash_" + secrets.token_hex(4)
    base = database_url(server.database_url, "")
    create_database(base, name)
    url = database_url(base, name)
    procs = []
    try:
        env = dict(os.environ, DATABASE_URL=url)
        for args in (["migrate"], ["distribute", "--shard-count", "4"]):
            subprocess.run([server.binary, *args], check=True, capture_output=True, env=env, timeout=300)
        app_id, key, master = "crash" + secrets.token_hex(3), "k" + secrets.token_hex(6), "m" + secrets.token_hex(6)
        subprocess.run([server.binary, "app", "create", "--name", "crash", "--id", app_id, "--key", key,
                        "--master-key", master], check=True, capture_output=True, env=env, timeout=60)
        settings = dict(simulator.app_settings)
        settings.update({"apns.key_file": simulator.apns_key_file, "apns.key_id": simulator.key_id,
                         "apns.team_id": simulator.team_id, "apns.topic": APNS_TOPIC})
        subprocess.run([server.binary, "app", "set", "--app", app_id, *("%s=%s" % kv for kv in sorted(settings.items()))],
                       check=True, capture_output=True, env=env, timeout=60)
        survivor, api = serve(server.binary, url, tmp_path / "survivor.log")
        procs.append(survivor)
        victim, _ = serve(server.binary, url, tmp_path / "victim.log")
        procs.append(victim)
        headers = {"X-LC-Id": app_id, "X-LC-Key": master + ",master", "Content-Type": "application/json"}
        channel = "crash-" + secrets.token_hex(3)
        tokens = ["%064x" % (0xC17005 * 100000 + i) for i in range(DEVICES)]

        def save(token):
            r = requests.post(api + "/installations", data=json.dumps(
                {"deviceType": "ios", "deviceToken": token, "channels": [channel]}), headers=headers, timeout=30)
            assert r.status_code == 201, r.text

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(save, tokens))
        accepted_before = simulator.stats()["apns"]["accepted"]
        r = requests.post(api + "/push", data=json.dumps({"channels": [channel], "data": {"alert": "survive"}}),
                          headers=headers, timeout=30)
        assert r.status_code == 200, r.text
        push_id = r.json()["objectId"]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            record = requests.get(api + "/notifications/" + push_id, headers=headers, timeout=10).json()
            if record.get("successes", 0) >= DEVICES // 3:
                break
            time.sleep(0.01)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(10)
        assert record["successes"] < DEVICES, "the kill must land mid-push"
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            record = requests.get(api + "/notifications/" + push_id, headers=headers, timeout=10).json()
            if record["status"] == "done":
                break
            time.sleep(0.2)
        assert (record["status"], record["devices"], record["successes"], record["errors"]) == \
            ("done", DEVICES, DEVICES, 0), record
        # Every device reached the provider; what it accepted beyond them is what the crash sent again.
        sent = [simulator.requests_for(t)["accepted"] for t in tokens]
        assert min(sent) >= 1, "a device was never sent the push"
        accepted = simulator.stats()["apns"]["accepted"] - accepted_before
        assert accepted == sum(sent)
        assert accepted - DEVICES <= DUPLICATE_BOUND, "%d devices got the push twice" % (accepted - DEVICES)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        drop_database(base, name)
