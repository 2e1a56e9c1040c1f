"""Outbound requests are never aimed by clients (issue 43 item 1, SPEC §12.7).

A loopback listener stands for anything a client might aim the server at (loopback services, the cloud's
metadata address, a host of its own that would receive the app's WNS access token). Whatever URI a client
saves, the listener must never see a connection; the simulator's own WNS path still works because its port
is in `wns.allowed_hosts`. Values that travel in provider request headers or paths are refused when they
arrive if they could change the request, and what does reach a provider arrives as sent.
"""

import json
import secrets
import socket
import threading
import time

import pytest
import requests

APP_CACHE_SECONDS = 2.5  # apps are cached for two seconds


class CountingListener:
    """Accepts TCP connections on loopback and counts them; never answers."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while self.open:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self):
        self.open = False
        self.sock.close()


@pytest.fixture
def listener():
    one = CountingListener()
    yield one
    one.close()


def headers(app, master=False):
    key = app.master_key + ",master" if master else app.app_key
    return {"X-LC-Id": app.app_id, "X-LC-Key": key, "Content-Type": "application/json"}


def save_windows(server, app, uri, iid=None):
    body = {"deviceType": "windows", "installationId": iid or "win-" + secrets.token_hex(6), "subscriptionUri": uri}
    return requests.post(server.url("/installations"), data=json.dumps(body), headers=headers(app), timeout=10)


def push(server, app, body, path="/push"):
    r = requests.post(server.url(path), data=json.dumps(body), headers=headers(app, master=True), timeout=10)
    assert r.status_code == 200, r.text
    object_id = r.json()["objectId"]
    deadline = time.monotonic() + 30
    while True:
        record = requests.get(server.url("/notifications/" + object_id), headers=headers(app, True), timeout=10).json()
        if record["status"] not in ("in-queue", "scheduled"):
            return record
        assert time.monotonic() < deadline, record
        time.sleep(0.2)


def aimed_uris(port):
    """Ways to write a URI that leads to the listener (or to another host than Microsoft's)."""
    return [
        "https://127.0.0.1:%d/channel" % port,
        "https://localhost:%d/channel" % port,
        "https://LOCALHOST:%d/channel" % port,
        "https://127.0.0.1.:%d/" % port,
        "https://0x7f000001:%d/" % port,
        "https://2130706433:%d/" % port,
        "https://[::1]:%d/" % port,
        "https://[::ffff:127.0.0.1]:%d/" % port,
        "https://%%31%%32%%37.0.0.1:%d/" % port,
        "https://db5.notify.windows.com@127.0.0.1:%d/" % port,
        "https://user:pass@db5.notify.windows.com/",
        "https://127.0.0.1:%d#.notify.windows.com" % port,
        "https://127.0.0.1:%d\\@db5.notify.windows.com/" % port,
        "https://127.0.0.1:%d/?.notify.windows.com" % port,
        "https://db5.notify.windows.com.127.0.0.1.nip.io:%d/" % port,
        "https://evilnotify.windows.com/",
        "https://notify.windows.com.evil.example/",
        "https://db5.notify.windows.com:%d/" % port,  # Microsoft's name, the listener's port: not 443
        "https://db5.notify.windows.com./",
        "https://169.254.169.254/latest/meta-data/",
        "https://metadata.google.internal/computeMetadata/v1/",
        "http://db5.notify.windows.com/",
        "https://db5.notify.windows.com/\r\nX-Evil: 1",
        "https://db5.notify.windows.com /",
        " https://db5.notify.windows.com/",
    ]


def test_no_uri_a_client_saves_makes_the_server_connect_to_it(server, push_app, simulator, listener):
    before = server.event_count(push_app.app_id)
    for uri in aimed_uris(listener.port):
        r = save_windows(server, push_app, uri)
        assert r.status_code == 400 and r.json()["code"] == 1, (uri, r.text)
    assert server.event_count(push_app.app_id) == before

    # A good channel (the simulator's), then a PUT aiming it elsewhere: refused, the stored URI unchanged.
    good = simulator.app_settings["wns.token_endpoint"].rsplit("/", 1)[0] + "/wns/out-" + secrets.token_hex(4)
    r = save_windows(server, push_app, good)
    assert r.status_code == 201, r.text
    object_id = r.json()["objectId"]
    for uri in aimed_uris(listener.port)[:6]:
        r = requests.put(server.url("/installations/" + object_id), data=json.dumps({"subscriptionUri": uri}),
                         headers=headers(push_app), timeout=10)
        assert r.status_code == 400 and r.json()["code"] == 1, (uri, r.text)
    stored = requests.get(server.url("/installations/" + object_id), headers=headers(push_app), timeout=10).json()
    assert stored["subscriptionUri"] == good

    # /push/devices takes channel URIs directly: they are held to the same hosts when sent.
    direct = ["https://127.0.0.1:%d/direct" % listener.port, "https://localhost:%d/x" % listener.port,
              "https://169.254.169.254/latest/meta-data/"]
    record = push(server, push_app, {"device_type": "windows", "device_ids": direct, "data": {"alert": "x"}},
                  path="/push/devices")
    assert record["errors"] == 3 and record["successes"] == 0, record
    assert record["errorReasons"] == {"ForbiddenEndpoint": 3}, record
    assert listener.connections == 0


def test_a_uri_the_operator_stops_admitting_is_forbidden_at_send(server, push_app, simulator, listener):
    channel = "outbound_" + secrets.token_hex(4)
    base = simulator.app_settings["wns.allowed_hosts"]
    server.cli("app", "set", "--app", push_app.app_id, "wns.allowed_hosts=%s,127.0.0.1:%d" % (base, listener.port))
    time.sleep(APP_CACHE_SECONDS)
    try:
        aimed = "https://127.0.0.1:%d/operator-admitted" % listener.port
        r = requests.post(server.url("/installations"), headers=headers(push_app), timeout=10, data=json.dumps(
            {"deviceType": "windows", "installationId": "win-" + secrets.token_hex(6), "subscriptionUri": aimed,
             "channels": [channel]}))
        assert r.status_code == 201, r.text
    finally:
        server.cli("app", "set", "--app", push_app.app_id, "wns.allowed_hosts=%s" % base)
    time.sleep(APP_CACHE_SECONDS)
    good = simulator.app_settings["wns.token_endpoint"].rsplit("/", 1)[0] + "/wns/ok-" + secrets.token_hex(4)
    r = requests.post(server.url("/installations"), headers=headers(push_app), timeout=10, data=json.dumps(
        {"deviceType": "windows", "installationId": "win-" + secrets.token_hex(6), "subscriptionUri": good,
         "channels": [channel]}))
    assert r.status_code == 201, r.text
    record = push(server, push_app, {"channels": [channel], "data": {"alert": "hello"}})
    # The simulator's channel got it through the list; the one no longer admitted was never contacted.
    assert (record["successes"], record["errors"]) == (1, 1), record
    assert record["errorReasons"] == {"ForbiddenEndpoint": 1}, record
    assert simulator.requests_for(good.rsplit("/", 1)[1])["accepted"] == 1
    assert listener.connections == 0


@pytest.mark.parametrize("value", ["bad entry", "https://127.0.0.1:1", "127.0.0.1:0", "127.0.0.1:70000",
                                   "host/path", "user@host", "host.:443", ""])
def test_allowed_hosts_setting_is_checked(server, push_app, value):
    if value == "":
        return  # an empty value removes the setting
    done = server.cli("app", "set", "--app", push_app.app_id, "wns.allowed_hosts=" + value, check=False)
    assert done.returncode != 0 and "wns.allowed_hosts" in (done.stdout + done.stderr), done


def test_header_and_path_values_cannot_change_a_provider_request(server, push_app, simulator):
    before = server.event_count(push_app.app_id)
    evil = "com.example.app\r\nx-evil: 1"
    for body, code in (({"where": {}, "topic": evil, "data": {"alert": "x"}}, 1),
                       ({"where": {}, "topic": "com.example.app/../x", "data": {"alert": "x"}}, 1),
                       ({"where": {}, "apns_team_id": "T\r\nx-evil: 1", "data": {"alert": "x"}}, 1),
                       ({"device_type": "ios", "device_ids": ["ab" * 32 + "\r\nx-evil: 1"], "data": {}}, 114),
                       ({"device_type": "ios", "device_ids": ["../../3/device/" + "ab" * 32], "data": {}}, 114)):
        path = "/push/devices" if "device_ids" in body else "/push"
        r = requests.post(server.url(path), data=json.dumps(body), headers=headers(push_app, True), timeout=10)
        assert r.status_code == 400 and r.json()["code"] == code, (body, r.text)
    for field, value in (("apnsTopic", evil), ("apnsTeamId", "T\nx"), ("apnsTopic", "a/b")):
        r = requests.post(server.url("/installations"), headers=headers(push_app), timeout=10, data=json.dumps(
            {"deviceType": "ios", "deviceToken": secrets.token_hex(32), field: value}))
        assert r.status_code == 400 and r.json()["code"] == 1, (field, r.text)
    assert server.event_count(push_app.app_id) == before
    done = server.cli("app", "set", "--app", push_app.app_id, "apns.topic=" + evil, check=False)
    assert done.returncode != 0 and "apns.topic" in (done.stdout + done.stderr), done

    # An FCM registration id goes into a JSON body: whatever it holds arrives there verbatim, never as a header.
    token = "fcm-" + secrets.token_hex(4) + "\r\nx-evil: 1\"}"
    record = push(server, push_app, {"device_type": "android", "device_ids": [token], "data": {"alert": "x"}},
                  path="/push/devices")
    assert record["successes"] == 1, record
    seen = simulator.requests_for(token)
    assert seen["accepted"] == 1, seen
    request = seen["recorded"][0]
    assert request["payload"]["message"]["token"] == token
    assert "x-evil" not in {k.lower() for k in request["headers"]}
