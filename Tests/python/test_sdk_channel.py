"""The LeanCloud Android SDK's own channel (SPEC §12.4): a client that does what the unchanged Android SDK does,
step by step (research/lc-push-channel.md §6): it saves its installation as the SDK does, asks `/v1/route`,
opens the WebSocket with subprotocol `lc.protobuf2.3`, logs in by appId and installationId, receives `data`
commands and acks them. The same again through `lc.proto2base64.3`, the JavaScript SDK's base64 framing.

The client writes and reads protobuf with the little codec below, from the field numbers of the SDK's schema
(research §3), not with the server's: its frames are checked byte for byte against the example frames of
research §7, so the server cannot merely agree with itself.
"""

import base64
import hashlib
import json
import re
import secrets
import time
import uuid

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from test_device_channel import start_server, stop

# research/lc-push-channel.md §7, one frame each.
LOGIN_HEX = ("08081a0b594f55525f4150505f494432206131623263336434653566363037313832393361346235633664376538663930"
             "a2062c0a2a080112192a175869616f6d692f5265646d692f4d323031324b313141431a090a0352454c120233332000")
LOGGEDIN_HEX = "080f4000aa07020800"
DATA_HEX = ("0809aa065d0a0a35663165306339613262124f0a4d7b22616c657274223a2248656c6c6f222c227469746c65223a224869222c225f"
            "6368616e6e656c223a227075626c6963222c225f6e6f74696669636174696f6e4368616e6e656c223a2231227d")
ACK_HEX = "080332206131623263336434653566363037313832393361346235633664376538663930ca060c520a35663165306339613262"
EXAMPLE_INSTALLATION = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

# CommandType values of the SDK's schema.
ACK, ERROR, LOGIN, DATA, ECHO, LOGGEDIN, DIRECT = 3, 7, 8, 9, 14, 15, 2
EXPIRATION = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")  # yyyy-MM-dd'T'HH:mm:ss.SSS'Z'


# --- A protobuf-2 writer and reader of just the wire types the schema uses (varint, length-delimited).

def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def number(field, value):
    return varint(field << 3) + varint(value)


def nested(field, payload):
    payload = payload.encode() if isinstance(payload, str) else payload
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def fields(data):
    """A message's fields: number -> list of values (int for varints, bytes for length-delimited)."""
    out, pos = {}, 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos)
        elif wire == 2:
            size, pos = read_varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
        else:
            raise AssertionError("unexpected wire type %d" % wire)
        out.setdefault(field, []).append(value)
    return out


def read_varint(data, pos):
    shift = result = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def login_frame(app_id, installation_id):
    """The Android SDK's login (LoginPacket): cmd, appId, installationId and loginMessage.systemInfo."""
    system_info = (number(1, 1)  # deviceType android
                   + nested(2, nested(5, "Xiaomi/Redmi/M2012K11AC"))  # osVersion.build
                   + nested(3, nested(1, "REL") + nested(2, "33"))  # androidVersion codename, apiLevel
                   + number(4, 0))  # isEmulator
    return number(1, LOGIN) + nested(3, app_id) + nested(6, installation_id) + nested(100, nested(1, system_info))


def ack_frame(installation_id, ids):
    """PushAckPacket: cmd, installationId and ackMessage.ids (field 10), no appId."""
    return number(1, ACK) + nested(6, installation_id) + nested(105, b"".join(nested(10, i) for i in ids))


def echo_frame(i):
    return number(1, ECHO) + number(5, i)


def command(data):
    """A server command as a dict of what the SDK reads."""
    f = fields(data)
    out = {"cmd": f.get(1, [0])[0]}
    if 5 in f:
        out["i"] = f[5][0]
    if 8 in f:
        out["service"] = f[8][0]
    if 101 in f:
        d = fields(f[101][0])
        out["ids"] = [i.decode() for i in d.get(1, [])]
        out["msg"] = [fields(m)[1][0].decode() for m in d.get(2, [])]
        out["offline"] = bool(d.get(3, [0])[0])
    if 103 in f:
        e = fields(f[103][0])
        out["code"], out["reason"] = e[1][0], e[2][0].decode()
    if 117 in f:
        out["pushDisabled"] = bool(fields(f[117][0]).get(1, [0])[0])
    return out


def test_the_client_codec_writes_and_reads_the_research_frames():
    assert login_frame("YOUR_APP_ID", EXAMPLE_INSTALLATION).hex() == LOGIN_HEX
    assert ack_frame(EXAMPLE_INSTALLATION, ["5f1e0c9a2b"]).hex() == ACK_HEX
    assert command(bytes.fromhex(LOGGEDIN_HEX)) == {"cmd": LOGGEDIN, "service": 0, "pushDisabled": False}
    assert command(bytes.fromhex(DATA_HEX)) == {
        "cmd": DATA, "ids": ["5f1e0c9a2b"], "offline": False,
        "msg": ['{"alert":"Hello","title":"Hi","_channel":"public","_notificationChannel":"1"}']}


# --- The Android SDK, step by step.

class AndroidSDK:
    """One phone running the LeanCloud Android SDK with `LeanCloud.initialize(ctx, appId, appKey, serverURL)`."""

    def __init__(self, base, app_id, app_key, subprotocol="lc.protobuf2.3", channels=()):
        self.base, self.app_id, self.app_key, self.subprotocol = base, app_id, app_key, subprotocol
        # LCInstallation.genInstallationId: MD5(packageName + UUID), 32 lowercase hex characters.
        self.installation_id = hashlib.md5(("cn.example.app" + str(uuid.uuid4())).encode()).hexdigest()
        self.channels = list(channels)
        self.object_id = None

    def headers(self):
        ts = str(int(time.time() * 1000))
        return {"X-LC-Id": self.app_id, "X-LC-Sign": hashlib.md5((ts + self.app_key).encode()).hexdigest() + "," + ts,
                "X-LC-Prod": "1", "Content-Type": "application/json", "Accept": "application/json",
                "User-Agent": "LeanCloud-Java-SDK/8.2.28"}

    def save_installation(self):
        """LCInstallation.saveInBackground: the whole object, signed, with fetchWhenSave (research §5)."""
        body = {"deviceType": "android", "installationId": self.installation_id, "timeZone": "Asia/Shanghai",
                "channels": self.channels}
        r = requests.post(self.base + "/1.1/installations?fetchWhenSave=true", json=body, headers=self.headers())
        assert r.status_code == 201, r.text
        self.object_id = r.json()["objectId"]
        assert r.json()["createdAt"], r.text
        # A later start saves the whole object again, by objectId.
        again = requests.put(self.base + "/1.1/installations/%s?fetchWhenSave=true" % self.object_id, json=body,
                             headers=self.headers())
        assert again.status_code == 200, again.text

    def route(self):
        """AppRouter.fetchRTMConnectionServer: no auth headers."""
        r = requests.get(self.base + "/v1/route",
                         params={"appId": self.app_id, "installationId": self.installation_id, "secure": "1"})
        assert r.status_code == 200, r.text
        answer = r.json()
        assert set(answer) == {"server", "secondary", "ttl", "groupId"}, answer
        assert answer["secondary"] == answer["server"] and answer["ttl"] > 0 and answer["groupId"], answer
        return answer["server"]

    def open(self, url):
        ws = connect(url, subprotocols=[self.subprotocol], open_timeout=10)
        # The SDK's Draft_6455 aborts a handshake whose answer does not echo its subprotocol.
        assert ws.subprotocol == self.subprotocol, ws.subprotocol
        return ws

    def send(self, ws, frame):
        ws.send(frame if self.subprotocol == "lc.protobuf2.3" else base64.b64encode(frame).decode())

    def receive(self, ws, timeout=15):
        message = ws.recv(timeout=timeout)
        if self.subprotocol == "lc.protobuf2.3":
            assert isinstance(message, bytes), "lc.protobuf2.3 takes binary frames: %r" % message
            return command(message)
        assert isinstance(message, str), "lc.proto2base64.3 takes text frames: %r" % message
        return command(base64.b64decode(message, validate=True))

    def login(self, ws):
        """LCConnectionManager.onOpen sends the login; the optional loggedin answer must say service 0."""
        self.send(ws, login_frame(self.app_id, self.installation_id))
        assert self.receive(ws) == {"cmd": LOGGEDIN, "service": 0, "pushDisabled": False}

    def next_push(self, ws, timeout=15):
        """LCPushMessageListener.onMessageArriving: one data command's (id, JSON, offline), acked all at once."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.receive(ws, timeout=max(0.1, deadline - time.monotonic()))
            if got["cmd"] == DATA:
                assert len(got["ids"]) == len(got["msg"]) == 1, got
                self.send(ws, ack_frame(self.installation_id, got["ids"]))
                return got["ids"][0], json.loads(got["msg"][0]), got["offline"]


# --- Against the server.

def push(server, app, body):
    r = requests.post(server.url("/push"), json=body, headers=app.master_headers())
    assert r.status_code == 200, r.text
    return r.json()["objectId"]


def record(server, app, push_id, predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        r = requests.get(server.url("/notifications/" + push_id), headers=app.master_headers())
        assert r.status_code == 200, r.text
        if predicate(r.json()):
            return r.json()
        assert time.monotonic() < deadline, "record never matched: %r" % r.json()
        time.sleep(0.2)


def refused_sdk_logins(server):
    r = requests.get(server.base_url + "/metrics", timeout=10)
    assert r.status_code == 200, r.text
    return sum(s.value for family in text_string_to_metric_families(r.text) for s in family.samples
               if s.name == "pushledger_channel_sdk_logins_refused_total")


class App:
    def __init__(self, server, login=None):
        self.app_id = "pySdkCh" + secrets.token_hex(4)
        self.app_key = "pySdkChKey" + secrets.token_hex(8)
        self.master_key = "pySdkChMaster" + secrets.token_hex(8)
        server.create_app("sdk-channel", self.app_id, self.app_key, self.master_key)
        if login:
            server.cli("app", "set", "--app", self.app_id, "channel.login=" + login)

    def master_headers(self):
        return {"X-LC-Id": self.app_id, "X-LC-Key": self.master_key + ",master", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def sdk_app(server):
    """An app migrating from LeanCloud: it admits the SDK's login (set before the server first reads the app)."""
    return App(server, login="installation-id")


@pytest.mark.parametrize("subprotocol", ["lc.protobuf2.3", "lc.proto2base64.3"])
def test_the_android_sdk_receives_pushes_offline_and_live_and_never_after_expiry(server, sdk_app, subprotocol):
    channel = "sdk" + secrets.token_hex(4)
    phone = AndroidSDK(server.base_url, sdk_app.app_id, sdk_app.app_key, subprotocol, channels=[channel])
    phone.save_installation()
    where = {"installationId": phone.installation_id}
    content = {"alert": "Hello", "title": "Hi", "action": "cn.example.PUSH", "silent": False,
               "sound": "ping", "_notificationChannel": "news", "custom": {"k": [1, 2]}}
    # While the phone is offline: one push that waits, one that expires before the phone comes.
    offline = push(server, sdk_app, {"where": where, "data": content})
    expiring = push(server, sdk_app, {"where": where, "data": {"alert": "too late"}, "expiration_interval": 2})
    record(server, sdk_app, offline, lambda r: r["channelPending"] == 1)
    record(server, sdk_app, expiring, lambda r: r["errors"] == 1, timeout=20)

    url = phone.route()
    assert url == server.base_url.replace("http://", "ws://") + "/channel", url
    with phone.open(url) as ws:
        phone.login(ws)
        seq, data, was_offline = phone.next_push(ws)
        assert was_offline, "a message stored before the login is flagged offline"
        expiration = data.pop("_expiration_time")
        assert EXPIRATION.match(expiration), expiration
        assert data == dict(content, _nid=offline), data
        # A channel push while the phone is connected: announced live, with the channel the SDK routes by.
        live = push(server, sdk_app, {"channels": [channel], "data": {"alert": "live"}})
        live_seq, data, was_offline = phone.next_push(ws)
        assert not was_offline and live_seq != seq
        assert {k: data[k] for k in ("alert", "_channel", "_nid")} == {"alert": "live", "_channel": channel,
                                                                      "_nid": live}, data
        # JavaScript SDKs keep alive with cmd=echo: answered with the same i.
        phone.send(ws, echo_frame(7))
        assert phone.receive(ws) == {"cmd": ECHO, "i": 7}
        # Nothing else comes: the expired push never does.
        with pytest.raises(TimeoutError):
            phone.next_push(ws, timeout=2)

    # The SDK's acks count exactly as the JSON dialect's do.
    for push_id in (offline, live):
        done = record(server, sdk_app, push_id, lambda r: r["successes"] == 1 and r["channelPending"] == 0)
        assert (done["devices"], done["successes"], done["errors"], done["androidSuccesses"]) == (1, 1, 0, 1), done
    gone = record(server, sdk_app, expiring, lambda r: r["errors"] == 1)
    assert (gone["successes"], gone["errorReasons"]) == (0, {"Expired": 1}), gone


def test_under_channel_login_token_an_sdk_login_gets_4103_and_a_close_and_is_counted(server):
    app = App(server)  # channel.login left at its default, token
    phone = AndroidSDK(server.base_url, app.app_id, app.app_key)
    phone.save_installation()
    before = refused_sdk_logins(server)
    with phone.open(phone.route()) as ws:
        phone.send(ws, login_frame(app.app_id, phone.installation_id))
        got = phone.receive(ws)
        assert (got["cmd"], got["code"]) == (ERROR, 4103) and "channel.login" in got["reason"], got
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 4103
    assert refused_sdk_logins(server) == before + 1


def test_channel_login_takes_only_its_two_values(server):
    app = App(server)
    done = server.cli("app", "set", "--app", app.app_id, "channel.login=installationId", check=False)
    assert done.returncode != 0 and "token or installation-id" in done.stdout + done.stderr, done


def test_bad_input_gets_an_error_command_or_a_close(server, sdk_app):
    phone = AndroidSDK(server.base_url, sdk_app.app_id, sdk_app.app_key)
    url = phone.route()

    def closed_with(ws):
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
        return closed.value.rcvd.code

    # An IM command is refused with an error naming it, and the connection stays: an echo still answers.
    with phone.open(url) as ws:
        phone.send(ws, number(1, DIRECT) + number(5, 3))
        got = phone.receive(ws)
        assert (got["cmd"], got["code"], got["i"]) == (ERROR, 1003, 3) and "direct" in got["reason"], got
        # An ack before a login acknowledges nothing.
        phone.send(ws, ack_frame(phone.installation_id, ["1"]))
        assert phone.receive(ws)["code"] == 4105
        phone.send(ws, echo_frame(9))
        assert phone.receive(ws) == {"cmd": ECHO, "i": 9}
    # Not a GenericCommand: an error command, then close 1007.
    with phone.open(url) as ws:
        ws.send(b"\xff\xff\xff\xff")
        got = phone.receive(ws)
        assert (got["cmd"], got["code"]) == (ERROR, 1007), got
        assert closed_with(ws) == 1007
    # A text frame where the protobuf dialect takes binary ones.
    with phone.open(url) as ws:
        ws.send("hello")
        assert phone.receive(ws)["code"] == 1003
        assert closed_with(ws) == 1003
    # Not base64 in the base64 dialect.
    b64 = AndroidSDK(server.base_url, sdk_app.app_id, sdk_app.app_key, "lc.proto2base64.3")
    with b64.open(url) as ws:
        ws.send("%%% not base64 %%%")
        assert b64.receive(ws)["code"] == 1007
        assert closed_with(ws) == 1007
    # A frame over the channel's 64 KiB limit.
    with phone.open(url) as ws:
        ws.send(b"\x08\x08" + nested(3, "x" * 70_000))
        assert closed_with(ws) == 1009
    # A login for an app that does not exist.
    with phone.open(url) as ws:
        phone.send(ws, login_frame("noSuchApp" + secrets.token_hex(4), phone.installation_id))
        assert phone.receive(ws)["code"] == 4100
        assert closed_with(ws) == 4100


def test_route_refuses_unknown_apps_and_honours_the_public_url(server, sdk_app, tmp_path):
    unknown = requests.get(server.base_url + "/v1/route", params={"appId": "noSuchApp", "secure": "1"})
    assert unknown.status_code == 404 and set(unknown.json()) == {"code", "error"}, unknown.text
    missing = requests.get(server.base_url + "/v1/route")
    assert missing.status_code == 400 and set(missing.json()) == {"code", "error"}, missing.text
    proc, base = start_server(server, tmp_path / "serve.stderr", "--channel-public-url", "wss://push.example.com/ws")
    try:
        r = requests.get(base + "/v1/route", params={"appId": sdk_app.app_id, "secure": "1"})
        assert r.status_code == 200, r.text
        assert (r.json()["server"], r.json()["secondary"]) == ("wss://push.example.com/ws",) * 2, r.text
    finally:
        stop(proc)
    # The SDK connects only to ws:// and wss:// URLs: serve refuses anything else before it starts.
    refused = server.cli("serve", "--port", "0", "--channel-public-url", "https://push.example.com", check=False)
    assert refused.returncode == 64 and "--channel-public-url" in refused.stderr, refused
