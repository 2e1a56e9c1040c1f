"""The official LeanCloud Python SDK (unchanged) sending pushes through PushLedger (SPEC §4–5).

Deliveries go to `pushledger simulate` (module fixtures `simulator` and `push_app` in conftest.py): the
app of this module points its APNs/FCM endpoints at it, and the simulator's control API tells what each
device token really received. Built-in error injection: tokens starting "dead" answer 410 Unregistered,
"bad0" 400 BadDeviceToken.
"""

import base64
import datetime
import json
import re
import secrets
import time

import pytest
import requests

from conftest import APNS_TOPIC

DONE_TIMEOUT = 20


def ios_token(prefix=""):
    """A 64-hex-digit APNs token; a prefix selects the simulator's error injection."""
    return prefix + secrets.token_hex(32)[len(prefix):]


def save_ios(lc, token, channels):
    inst = lc.Installation()
    inst.set("deviceType", "ios")
    inst.set("deviceToken", token)
    inst.set("channels", channels)
    inst.save()
    return inst


def status_of(notification):
    notification.fetch()  # GET /1.1/tables/Notifications/:id
    return notification.get("status")


def wait_done(notification, timeout=DONE_TIMEOUT):
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        status = status_of(notification)
        if not seen or seen[-1] != status:
            seen.append(status)
        if status == "done":
            return notification
        assert status in ("scheduled", "in-queue"), "push %s ended with status %r" % (notification.id, status)
        assert time.monotonic() < deadline, "push %s not done after %ss; statuses %r" % (
            notification.id, timeout, seen)
        time.sleep(0.2)


def counts(notification):
    return {k: notification.get(k) for k in ("devices", "successes", "errors", "invalidTokens",
                                             "iosSuccesses", "androidSuccesses")}


def jwt_part(jwt, index):
    part = jwt.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def scheduled_list(server, push_app):
    r = requests.get(server.url("/scheduledPushMessages"), headers=push_app.master_headers())
    assert r.status_code == 200, r.text
    return r.json()["results"]


@pytest.fixture
def lc(sdk, push_app):
    """The SDK initialised for the module's app with its master key (push.send needs it)."""
    return sdk.as_master(push_app.app_id, push_app.master_key)


@pytest.fixture
def wire(lc):
    """What the SDK sends, recorded through its public request_hooks."""
    seen = []
    lc.client.request_hooks["response"] = lambda r, *a, **k: seen.append(r)
    yield seen
    lc.client.request_hooks.clear()


def test_push_to_channel_delivers_once_per_device(server, push_app, simulator, lc, wire):
    tokens = [ios_token() for _ in range(3)]
    for tok in tokens:
        save_ios(lc, tok, ["promo"])
    wire.clear()

    data = {"alert": "Flash sale", "badge": 3, "sound": "default", "offer": "x42", "meta": {"k": 1}}
    notification = lc.push.send(data, channels=["promo"])
    assert isinstance(notification, lc.push.Notification)
    assert re.fullmatch(r"[0-9A-Za-z]{10,32}", notification.id), notification.id

    # What the SDK's push.send really sends.
    (sent,) = [r for r in wire]
    req = sent.request
    assert (req.method, requests.utils.urlparse(req.url).path) == ("POST", "/1.1/push")
    assert json.loads(req.body) == {"data": data, "channels": ["promo"]}
    assert req.headers["X-LC-Id"] == push_app.app_id and "X-LC-Key" not in req.headers
    assert re.fullmatch(r"[0-9a-f]{32},\d{13},master", req.headers["X-LC-Sign"])
    assert req.headers["X-LC-Prod"] == "1"
    assert sent.status_code == 200 and set(sent.json()) == {"objectId", "createdAt"}, sent.text

    wait_done(notification)
    assert counts(notification) == {"devices": 3, "successes": 3, "errors": 0, "invalidTokens": 0,
                                    "iosSuccesses": 3, "androidSuccesses": 0}

    for tok in tokens:
        got = simulator.requests_for(tok)
        assert (got["requests"], got["accepted"], len(got["recorded"])) == (1, 1, 1), got
        rec = got["recorded"][0]
        assert rec["path"] == "/3/device/" + tok, rec["path"]
        payload = rec["payload"]
        assert payload["aps"]["alert"] == "Flash sale"
        assert payload["aps"]["badge"] == 3 and payload["aps"]["sound"] == "default"
        assert payload["_nid"] == notification.id
        assert payload["offer"] == "x42" and payload["meta"] == {"k": 1}  # custom keys beside aps
        assert "offer" not in payload["aps"] and "_nid" not in payload["aps"]
        headers = {k.lower(): v for k, v in rec["headers"].items()}
        assert headers["apns-topic"] == APNS_TOPIC
        assert headers["apns-push-type"] == "alert"
        assert headers["apns-priority"] == "10"
        scheme, jwt = headers["authorization"].split(" ", 1)
        assert scheme.lower() == "bearer"
        header = jwt_part(jwt, 0)
        assert (header["alg"], header["kid"]) == ("ES256", simulator.key_id), header
        claims = jwt_part(jwt, 1)
        assert claims["iss"] == simulator.team_id and abs(claims["iat"] - time.time()) < 3600, claims


def test_scheduled_push_with_query_can_be_cancelled(server, push_app, simulator, lc, wire):
    ch = "sched_" + secrets.token_hex(4)
    tokens = [ios_token() for _ in range(2)]
    for tok in tokens:
        save_ios(lc, tok, [ch])
    save_ios(lc, ios_token(), ["other_" + secrets.token_hex(4)])  # not matched
    wire.clear()

    query = lc.Installation.query
    query.equal_to("channels", ch)
    push_time = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=3)
    notification = lc.push.send({"alert": "later"}, where=query, push_time=push_time)
    body = json.loads(wire[-1].request.body)
    assert body["where"] == {"channels": ch}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["push_time"]), body

    assert status_of(notification) == "scheduled"
    # push_msg is the request as sent (it carries no objectId): the where on a fresh channel identifies it.
    mine = [s for s in scheduled_list(server, push_app) if s["push_msg"].get("where") == {"channels": ch}]
    assert len(mine) == 1, scheduled_list(server, push_app)
    entry = mine[0]
    assert entry["push_msg"]["data"] == {"alert": "later"}
    assert entry["push_msg"]["push_time"] == body["push_time"]
    assert isinstance(entry["id"], int)
    assert abs(entry["expire_time"] - push_time.timestamp() * 1000) < 1000, (entry, push_time)
    assert entry["createdAt"]

    r = requests.delete(server.url("/scheduledPushMessages/%d" % entry["id"]),
                        headers=push_app.master_headers())
    assert (r.status_code, r.json()) == (200, {}), r.text
    assert [s for s in scheduled_list(server, push_app) if s["id"] == entry["id"]] == []
    assert status_of(notification) not in ("scheduled", "in-queue", "done")  # PushLedger says "cancelled"
    assert notification.get("successes") == 0
    again = requests.delete(server.url("/scheduledPushMessages/%d" % entry["id"]), headers=push_app.master_headers())
    assert again.status_code == 404 and again.json()["code"] == 101, again.text
    time.sleep(1)
    for tok in tokens:
        assert simulator.requests_for(tok)["requests"] == 0


def test_unregistered_and_bad_tokens_are_invalidated(server, push_app, simulator, lc):
    ch = "dead_" + secrets.token_hex(4)
    good = [ios_token() for _ in range(2)]
    dead = ios_token("dead")  # simulator: 410 Unregistered
    bad = ios_token("bad0")  # simulator: 400 BadDeviceToken
    for tok in good:
        save_ios(lc, tok, [ch])
    dead_inst = save_ios(lc, dead, [ch])
    bad_inst = save_ios(lc, bad, [ch])

    first = wait_done(lc.push.send({"alert": "one"}, channels=[ch]))
    assert counts(first) == {"devices": 4, "successes": 2, "errors": 2, "invalidTokens": 2,
                             "iosSuccesses": 2, "androidSuccesses": 0}, counts(first)
    assert simulator.requests_for(dead)["requests"] == 1 and simulator.requests_for(bad)["requests"] == 1

    # The installations are gone (deleted by the invalidation).
    for inst in (dead_inst, bad_inst):
        with pytest.raises(lc.LeanCloudError) as err:
            lc.Installation.create_without_data(inst.id).fetch()
        assert err.value.code == 101
        raw = requests.get(server.url("/classes/_Installation/" + inst.id), headers=push_app.master_headers())
        assert raw.status_code == 404 and raw.json()["code"] == 101, raw.text

    second = wait_done(lc.push.send({"alert": "two"}, channels=[ch]))
    assert counts(second) == {"devices": 2, "successes": 2, "errors": 0, "invalidTokens": 0,
                              "iosSuccesses": 2, "androidSuccesses": 0}, counts(second)
    assert simulator.requests_for(dead)["requests"] == 1 and simulator.requests_for(bad)["requests"] == 1
    for tok in good:
        assert simulator.requests_for(tok)["requests"] == 2


def test_req_id_repeat_sends_nothing_more(server, push_app, simulator, lc):
    """push.send has no req_id parameter, so the body goes through the SDK's own signed client.post."""
    ch = "req_" + secrets.token_hex(4)
    tokens = [ios_token() for _ in range(2)]
    for tok in tokens:
        save_ios(lc, tok, [ch])
    body = {"data": {"alert": "once"}, "channels": [ch], "req_id": "r" + secrets.token_hex(6)}

    first = lc.client.post("/push", params=dict(body)).json()
    n = wait_done(lc.push.Notification.create_without_data(first["objectId"]))
    assert counts(n)["successes"] == 2, counts(n)
    before = simulator.stats()["apns"]

    again = lc.client.post("/push", params=dict(body)).json()
    assert again["objectId"] == first["objectId"]
    time.sleep(1.5)
    assert simulator.stats()["apns"] == before
    for tok in tokens:
        assert simulator.requests_for(tok)["requests"] == 1
    assert counts(wait_done(lc.push.Notification.create_without_data(first["objectId"]))) == counts(n)


@pytest.mark.parametrize("when", ["expiration_time_past", "expiration_interval_tiny"])
def test_expired_push_sends_nothing(server, push_app, simulator, lc, when):
    ch = "exp_" + secrets.token_hex(4)
    tokens = [ios_token() for _ in range(2)]
    for tok in tokens:
        save_ios(lc, tok, [ch])
    if when == "expiration_time_past":
        kwargs = {"expiration_time": datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)}
    else:
        kwargs = {"expiration_interval": 0.001}  # expired long before any device can be reached
    notification = wait_done(lc.push.send({"alert": "too late"}, channels=[ch], **kwargs))
    assert counts(notification)["successes"] == 0, counts(notification)
    time.sleep(0.5)
    for tok in tokens:
        assert simulator.requests_for(tok)["requests"] == 0


@pytest.mark.parametrize("when", ["interval_only", "push_time_past_plus_interval"])
def test_unexpired_push_carries_apns_expiration(server, push_app, simulator, lc, when):
    """The positive counterpart: an expiration in the future is delivered and passed on as apns-expiration."""
    ch = "ttl_" + secrets.token_hex(4)
    tok = ios_token()
    save_ios(lc, tok, [ch])
    now = time.time()
    kwargs = {"expiration_interval": 3600}
    expected = now + 3600
    if when == "push_time_past_plus_interval":
        # Sent at once; the interval counts from push_time when one is given (SPEC §4.1, issue 13), so a
        # push_time ten minutes ago leaves fifty minutes. (The SDK's docstring says "from the API call";
        # SPEC decides, see docs/decisions.md.)
        kwargs["push_time"] = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=10)
        expected = now - 600 + 3600
    notification = wait_done(lc.push.send({"alert": "in time"}, channels=[ch], **kwargs))
    assert (counts(notification)["devices"], counts(notification)["successes"]) == (1, 1), counts(notification)
    (rec,) = simulator.requests_for(tok)["recorded"]
    headers = {k.lower(): v for k, v in rec["headers"].items()}
    assert abs(int(headers["apns-expiration"]) - expected) < 60, (headers, now)
