"""The own device channel (SPEC §12.2): devices without a vendor token connect to `/channel` over WebSocket,
receive their messages and acknowledge them; counts, expiry, presence and crash safety come from the ledger.

Devices here are real WebSocket clients (the `websockets` library, or `pushledger device` for the load and
crash cases). A second `pushledger serve` process on the same database serves the devices while pushes are
sent through the session's server, so every delivery crosses processes through PostgreSQL.
"""

import contextlib
import json
import os
import secrets
import signal
import ssl
import subprocess
import threading
import time
import urllib.parse

import pytest
import requests
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from conftest import APNS_TOPIC, _json_line

DONE_TIMEOUT = 30


def start_server(server, log_path, *extra):
    """One more `pushledger serve` on the session's database: returns (process, base URL)."""
    stderr = open(log_path, "a")
    proc = subprocess.Popen(
        [server.binary, "serve", "--host", "127.0.0.1", "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=stderr, text=True,
        env=dict(os.environ, DATABASE_URL=server.database_url, LOG_FORMAT="json"),
    )
    stderr.close()
    listening = _json_line(proc, "listening")
    if listening is None:
        proc.kill()
        proc.wait(10)
        pytest.fail("second serve did not start:\n" + open(log_path).read()[-3000:])
    return proc, "http://127.0.0.1:%d" % listening["port"]


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)  # our own child's pid
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def device_server(server, tmp_path_factory):
    """A second server process for devices to connect to."""
    proc, base = start_server(server, tmp_path_factory.mktemp("device-serve") / "serve.stderr")
    yield base
    stop(proc)


class Device:
    """A phone on the own channel: saves its installation, then connects with the token it was given."""

    def __init__(self, app, base, installation_id=None, channels=None, device_type="android"):
        self.app = app
        self.base = base
        self.installation_id = installation_id or "inst-" + secrets.token_hex(8)
        body = {"deviceType": device_type, "installationId": self.installation_id}
        if channels:
            body["channels"] = channels
        r = requests.post(base + "/1.1/installations", json=body,
                          headers={"X-LC-Id": app.app_id, "X-LC-Key": app.app_key})
        assert r.status_code == 201, r.text
        self.object_id = r.json()["objectId"]
        self.token = r.json()["channelToken"]

    def url(self, base=None, app_id=None, installation_id=None, token=None):
        query = {"appId": app_id or self.app.app_id, "installationId": installation_id or self.installation_id,
                 "token": token or self.token}
        return (base or self.base).replace("http://", "ws://") + "/channel?" + urllib.parse.urlencode(query)

    @contextlib.contextmanager
    def connect(self, base=None):
        with connect(self.url(base), open_timeout=10) as ws:
            welcome = json.loads(ws.recv(timeout=10))
            assert welcome["type"] == "welcome" and welcome["installationId"] == self.installation_id, welcome
            yield ws


def next_message(ws, timeout=15):
    """The next `message` frame (other frame types are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if frame["type"] == "message":
            return frame


def ack(ws, frame):
    ws.send(json.dumps({"type": "ack", "id": frame["id"]}))


def push(server, app, body):
    r = requests.post(server.url("/push"), json=body, headers=app.master_headers())
    assert r.status_code == 200, r.text
    return r.json()["objectId"]


def record(server, app, push_id):
    r = requests.get(server.url("/notifications/" + push_id), headers=app.master_headers())
    assert r.status_code == 200, r.text
    return r.json()


def wait_record(server, app, push_id, predicate, timeout=DONE_TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        rec = record(server, app, push_id)
        if predicate(rec):
            return rec
        assert time.monotonic() < deadline, "record never matched: %r" % rec
        time.sleep(0.2)


def counts(rec):
    keys = ("devices", "successes", "errors", "iosSuccesses", "androidSuccesses", "channelPending")
    return {k: rec.get(k) for k in keys}


def test_token_goes_only_to_the_creator_or_the_master_key(server, push_app, device_server):
    device = Device(push_app, device_server)
    again = requests.post(server.url("/installations"),
                          json={"deviceType": "android", "installationId": device.installation_id},
                          headers={"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key})
    assert again.status_code == 200 and "channelToken" not in again.json(), again.text
    master = requests.post(server.url("/installations"),
                           json={"deviceType": "android", "installationId": device.installation_id},
                           headers=push_app.master_headers())
    assert master.json()["channelToken"] == device.token


def test_a_device_cannot_connect_as_another_app_or_installation(server, push_app, device_server):
    mine = Device(push_app, device_server)
    other = Device(push_app, device_server)
    # Another app holding an installation with the same installationId.
    stranger_id, stranger_key = "pyOther" + secrets.token_hex(4), "pyOtherKey" + secrets.token_hex(8)
    server.create_app("channel-other", stranger_id, stranger_key, "pyOtherMaster" + secrets.token_hex(8))
    r = requests.post(device_server + "/1.1/installations",
                      json={"deviceType": "android", "installationId": mine.installation_id},
                      headers={"X-LC-Id": stranger_id, "X-LC-Key": stranger_key})
    stranger_token = r.json()["channelToken"]
    assert stranger_token != mine.token

    refused = [
        mine.url(app_id=stranger_id),  # my token, presented for the other app
        mine.url(token=stranger_token),  # the other app's token for the same installationId
        mine.url(installation_id=other.installation_id),  # my token for another installation
        mine.url(token=mine.token[:-2] + ("AA" if not mine.token.endswith("AA") else "BB")),
    ]
    for url in refused:
        # Refused after the handshake (browsers cannot read a failed handshake's status): an error frame,
        # then close code 4000 + the HTTP status.
        with connect(url, open_timeout=10) as ws:
            frame = json.loads(ws.recv(timeout=10))
            assert frame == {"type": "error", "code": 401, "error": "Unauthorized.", "status": 401}, frame
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 4401, url
        # The same request as plain HTTP says why, LeanCloud-style.
        answer = requests.get(url.replace("ws://", "http://"))
        assert answer.status_code == 401 and answer.json()["code"] == 401, answer.text
    missing = requests.get(device_server + "/channel?appId=" + push_app.app_id)
    assert missing.status_code == 400 and missing.json()["code"] == 135, missing.text

    # A message for `other` never reaches `mine`.
    with mine.connect() as ws:
        push(server, push_app, {"where": {"installationId": other.installation_id}, "data": {"alert": "not yours"}})
        with pytest.raises(TimeoutError):
            next_message(ws, timeout=3)


def test_one_push_reaches_every_platform_with_its_own_payload(server, simulator, push_app, device_server):
    channel = "mixed-" + secrets.token_hex(4)
    ios_token = secrets.token_hex(32)
    fcm_token = "fcm-" + secrets.token_hex(16)
    wns_channel = "win-" + secrets.token_hex(8)
    wns_uri = simulator.control[:-len("/_sim")] + "/wns/" + wns_channel
    for body in ({"deviceType": "ios", "deviceToken": ios_token, "channels": [channel]},
                 {"deviceType": "android", "registrationId": fcm_token, "installationId": "fcm-" + fcm_token,
                  "channels": [channel]},
                 {"deviceType": "windows", "subscriptionUri": wns_uri, "installationId": wns_channel,
                  "channels": [channel]}):
        r = requests.post(server.url("/installations"), json=body, headers=push_app.master_headers())
        assert r.status_code == 201, r.text
    own = Device(push_app, device_server, channels=[channel])
    with own.connect() as ws:
        push_id = push(server, push_app, {"channels": [channel], "data": {
            "ios": {"alert": "for ios", "badge": 3},
            "android": {"alert": "for android", "title": "T", "extra": {"k": 1}},
            "wp": {"alert": "for windows", "title": "W"},
        }})
        frame = next_message(ws)
        assert frame["pushId"] == push_id
        assert frame["data"] == {"alert": "for android", "title": "T", "extra": {"k": 1}, "_nid": push_id}, frame
        ack(ws, frame)
        rec = wait_record(server, push_app, push_id, lambda r: r["status"] == "done" and r["channelPending"] == 0
                          and r["successes"] == 4)
    assert counts(rec) == {"devices": 4, "successes": 4, "errors": 0, "iosSuccesses": 1, "androidSuccesses": 2,
                           "channelPending": 0}, rec
    assert rec["windowsSuccesses"] == 1, rec
    # What the vendors' look-alikes received: each its own platform's content.
    apns = simulator.requests_for(ios_token)
    assert apns["accepted"] == 1, apns
    assert apns["recorded"][0]["payload"]["aps"]["alert"] == "for ios"
    fcm = simulator.requests_for(fcm_token)
    assert fcm["accepted"] == 1, fcm
    assert "for android" in json.dumps(fcm["recorded"][0]["payload"])
    wns = simulator.requests_for(wns_channel)
    assert wns["accepted"] == 1, wns
    shown = json.dumps(wns["recorded"][0])
    assert "for windows" in shown and "for android" not in shown and "for ios" not in shown, wns


def test_offline_device_gets_its_message_on_connect_and_an_expired_one_never(server, push_app, device_server):
    device = Device(push_app, device_server)
    where = {"installationId": device.installation_id}
    lasting = push(server, push_app, {"where": where, "data": {"alert": "keeps"}})
    fleeting = push(server, push_app, {"where": where, "data": {"alert": "expires"}, "expiration_interval": 2})
    wait_record(server, push_app, lasting, lambda r: r["channelPending"] == 1)
    wait_record(server, push_app, fleeting, lambda r: r["channelPending"] == 1 or r["errors"] == 1)
    time.sleep(5)
    with device.connect() as ws:
        frame = next_message(ws)
        assert (frame["pushId"], frame["data"]) == (lasting, {"alert": "keeps", "_nid": lasting}), frame
        assert "expireAt" in frame
        ack(ws, frame)
        with pytest.raises(TimeoutError):
            next_message(ws, timeout=2)
    done = wait_record(server, push_app, lasting, lambda r: r["successes"] == 1)
    assert counts(done) == {"devices": 1, "successes": 1, "errors": 0, "iosSuccesses": 0, "androidSuccesses": 1,
                            "channelPending": 0}
    expired = wait_record(server, push_app, fleeting, lambda r: r["errors"] == 1, timeout=20)
    assert counts(expired) == {"devices": 1, "successes": 0, "errors": 1, "iosSuccesses": 0,
                               "androidSuccesses": 0, "channelPending": 0}
    assert expired["errorReasons"] == {"Expired": 1}, expired

    # The app opens without naming the push: attributed to the last push the device acknowledged.
    opened = requests.post(server.url("/events/AppOpened"), json={"installationId": device.installation_id},
                           headers={"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key})
    assert opened.status_code == 201 and opened.json()["notificationId"] == lasting, opened.text
    assert wait_record(server, push_app, lasting, lambda r: r["opens"] == 1)["opens"] == 1
    assert record(server, push_app, fleeting)["opens"] == 0

    # explain tells both stories, with the device's connection among its events.
    def explain(push_id):
        done = server.cli("explain", "--app", push_app.app_id, "--push", push_id, "--installation",
                          device.object_id, "--format", "json")
        return json.loads(done.stdout)

    acked = explain(lasting)
    assert acked["delivery"]["state"] == "delivered" and acked["delivery"]["via"] == "channel", acked
    assert "DeviceConnected" in [e["type"] for e in acked["history"] + acked["laterEvents"]], acked
    gone = explain(fleeting)
    assert gone["delivery"]["state"] == "failed" and gone["delivery"]["reason"] == "Expired", gone


def test_online_endpoint_follows_the_connection(server, push_app, device_server):
    device = Device(push_app, device_server)
    url = server.url("/installations/%s/online" % device.object_id)
    assert requests.get(url, headers={"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key}).status_code == 403
    before = requests.get(url, headers=push_app.master_headers()).json()
    assert before == {"online": False, "since": None, "lastSeen": None}, before
    with device.connect() as ws:
        deadline = time.monotonic() + 10
        while not (now := requests.get(url, headers=push_app.master_headers()).json())["online"]:
            assert time.monotonic() < deadline, now
            time.sleep(0.1)
        assert now["since"] and now["lastSeen"], now
    deadline = time.monotonic() + 10
    while (after := requests.get(url, headers=push_app.master_headers()).json())["online"]:
        assert time.monotonic() < deadline, after
        time.sleep(0.1)
    assert after["since"] >= now["since"], (now, after)
    assert requests.get(server.url("/installations/nosuchobject/online"),
                        headers=push_app.master_headers()).status_code == 404


def test_pending_messages_survive_sigkill_and_are_delivered_once(server, push_app, tmp_path):
    """1,000 channel messages wait in PostgreSQL; devices take them from a server that is then SIGKILLed
    before they acknowledge; after a restart every one is delivered again, acked, and counted once."""
    n = 1000
    channel = "crash-" + secrets.token_hex(4)
    prefix = "crash-" + secrets.token_hex(4)
    session = requests.Session()
    for i in range(1, n + 1):
        r = session.post(server.url("/installations"), headers=push_app.master_headers(),
                         json={"deviceType": "android", "installationId": "%s-%d" % (prefix, i), "channels": [channel]})
        assert r.status_code == 201, r.text
    push_id = push(server, push_app, {"channels": [channel], "data": {"alert": "survive"}})
    wait_record(server, push_app, push_id, lambda r: r["status"] == "done" and r["channelPending"] == n)

    def devices(base, *flags):
        return subprocess.run(
            [server.binary, "device", "--url", base, "--app", push_app.app_id, "--installation", prefix,
             "--key", push_app.master_key + ",master", "--connections", str(n), "--count", str(n),
             "--timeout", "60", *flags],
            capture_output=True, text=True, timeout=180)

    proc, base = start_server(server, tmp_path / "serve.stderr")
    try:
        taken = devices(base, "--no-ack")
        assert taken.returncode == 0, taken.stderr[-2000:]
        summary = json.loads(taken.stdout.strip().splitlines()[-1])
        assert summary["received"] >= n, summary
    finally:
        stop(proc, signal.SIGKILL)
    assert record(server, push_app, push_id)["channelPending"] == n

    proc, base = start_server(server, tmp_path / "serve.stderr")
    try:
        done = devices(base)
        assert done.returncode == 0, done.stderr[-2000:]
        summary = json.loads(done.stdout.strip().splitlines()[-1])
        assert summary["connected"] == n and summary["received"] >= n, summary
        rec = wait_record(server, push_app, push_id, lambda r: r["successes"] == n)
        time.sleep(1)
        rec = record(server, push_app, push_id)
    finally:
        stop(proc)
    assert counts(rec) == {"devices": n, "successes": n, "errors": 0, "iosSuccesses": 0, "androidSuccesses": n,
                           "channelPending": 0}, rec


def test_reference_client_prints_and_acknowledges(server, push_app, device_server):
    installation = "cli-" + secrets.token_hex(6)
    proc = subprocess.Popen(
        [server.binary, "device", "--url", device_server, "--app", push_app.app_id, "--installation", installation,
         "--key", push_app.app_key, "--count", "1", "--timeout", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        welcome = json.loads(proc.stdout.readline())
        assert welcome["type"] == "welcome" and welcome["installationId"] == installation, welcome
        push_id = push(server, push_app, {"where": {"installationId": installation}, "data": {"alert": "cli"}})
        out, err = proc.communicate(timeout=40)
    finally:
        stop(proc)
    assert proc.returncode == 0, err
    frame = json.loads(out.strip().splitlines()[-1])
    assert (frame["type"], frame["pushId"], frame["data"]) == ("message", push_id, {"alert": "cli", "_nid": push_id}), frame
    assert counts(wait_record(server, push_app, push_id, lambda r: r["successes"] == 1))["androidSuccesses"] == 1

    refused = server.cli("device", "--url", device_server, "--app", push_app.app_id, "--installation", installation,
                         "--token", "not-the-token", "--timeout", "30", check=False)
    # The error frame, or (should the client library lose it with the handshake's answer) the close code.
    output = refused.stdout + refused.stderr
    assert refused.returncode == 1 and ('"code":401' in output or "close code 4401" in output), refused


def test_tls_serves_https_and_wss(server, simulator, push_app, tmp_path):
    """With --tls-cert/--tls-key the port speaks HTTPS, and devices connect over WSS. The certificate is the
    simulator's server certificate (for localhost and 127.0.0.1), issued by its private CA."""
    certs = os.path.dirname(simulator.ca_file)
    cert, key, ca = os.path.join(certs, "server.pem"), os.path.join(certs, "server-key.pem"), simulator.ca_file
    alone = server.cli("serve", "--port", "0", "--tls-cert", cert, check=False)
    assert alone.returncode == 64 and "--tls-key" in alone.stderr, alone
    missing = server.cli("serve", "--port", "0", "--tls-cert", cert, "--tls-key", "/nonexistent/key.pem", check=False)
    assert missing.returncode == 64 and "/nonexistent/key.pem" in missing.stderr, missing
    proc, base = start_server(server, tmp_path / "serve.stderr", "--tls-cert", cert, "--tls-key", key)
    try:
        base = base.replace("http://", "https://")
        assert requests.get(base + "/health", verify=ca).json() == {"status": "ok"}
        with pytest.raises(requests.exceptions.ConnectionError):
            requests.get(base.replace("https://", "http://") + "/health", timeout=5)
        installation = "tls-" + secrets.token_hex(6)
        r = requests.post(base + "/1.1/installations", verify=ca,
                          json={"deviceType": "android", "installationId": installation},
                          headers={"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key})
        assert r.status_code == 201, r.text
        context = ssl.create_default_context(cafile=ca)
        url = base.replace("https://", "wss://") + "/channel?" + urllib.parse.urlencode(
            {"appId": push_app.app_id, "installationId": installation, "token": r.json()["channelToken"]})
        with connect(url, ssl=context, open_timeout=10) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            push_id = push(server, push_app, {"where": {"installationId": installation}, "data": {"alert": "tls"}})
            frame = next_message(ws)
            assert (frame["pushId"], frame["data"]) == (push_id, {"alert": "tls", "_nid": push_id}), frame
            ack(ws, frame)
        wait_record(server, push_app, push_id, lambda r: r["successes"] == 1)

        # The reference client over TLS, trusting the certificate with --ca-file.
        second = push(server, push_app, {"where": {"installationId": installation}, "data": {"alert": "again"}})
        done = server.cli("device", "--url", base.replace("127.0.0.1", "localhost"), "--app", push_app.app_id, "--installation", installation,
                          "--key", push_app.master_key + ",master", "--ca-file", ca, "--count", "1",
                          "--timeout", "30", check=False)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.strip().splitlines()[-1])["pushId"] == second
    finally:
        stop(proc)
