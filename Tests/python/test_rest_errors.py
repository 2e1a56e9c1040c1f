"""Raw HTTP checks for what the SDK does not exercise: error codes (SPEC §2), authentication (SPEC §1),
body limits. Every bad request must leave the event log untouched."""

import hashlib
import json
import secrets
import time

import pytest
import requests

UNAUTHORIZED = {"code": 401, "error": "Unauthorized."}


def ios_body(**extra):
    body = {"deviceType": "ios", "deviceToken": secrets.token_hex(32)}
    body.update(extra)
    return body


@pytest.fixture
def created(server):
    """A fresh iOS installation created over raw HTTP; returns (objectId, stored object)."""
    r = requests.post(server.url("/installations"), headers=server.app_headers(),
                      json=ios_body(channels=["keep"], badge=2))
    assert r.status_code == 201, r.text
    oid = r.json()["objectId"]
    got = requests.get(server.url("/installations/" + oid), headers=server.app_headers())
    assert got.status_code == 200, got.text
    return oid, got.json()


def assert_error(r, code, status=None):
    assert r.headers.get("Content-Type", "").startswith("application/json"), (r.status_code, r.headers, r.text)
    body = r.json()
    assert body.get("code") == code, (r.status_code, r.text)
    assert isinstance(body.get("error"), str) and body["error"], r.text
    if status is None:
        assert 400 <= r.status_code < 500, (r.status_code, r.text)
    else:
        assert r.status_code == status, (r.status_code, r.text)


@pytest.fixture
def no_new_events(server):
    before = server.event_count()
    yield
    assert server.event_count() == before, "a refused request appended an event"


@pytest.mark.parametrize("path", ["/installations", "/classes/_Installation"])
@pytest.mark.parametrize("body,code", [
    (ios_body(deviceToken="not-a-hex-token"), 114),
    (ios_body(deviceToken="ab" * 31 + "zz"), 114),
    (ios_body(channels=["good", "bad channel!"]), 112),
    (ios_body(channels=["has.dot"]), 112),
    ({"deviceToken": secrets.token_hex(32), "channels": ["a"]}, 135),
    ({"deviceType": "android"}, 135),
], ids=["token-not-hex", "token-bad-char", "channel-space-bang", "channel-dot",
        "missing-deviceType", "android-without-id"])
def test_bad_create_is_refused_without_event(server, no_new_events, path, body, code):
    rows = server.sql("SELECT count(*) FROM installations")
    r = requests.post(server.url(path), headers=server.app_headers(), data=json.dumps(body))
    assert_error(r, code)
    assert server.sql("SELECT count(*) FROM installations") == rows


def test_changing_device_type_on_put_is_136(server, created, no_new_events):
    oid, before = created
    for path in ("/installations/", "/classes/_Installation/"):
        r = requests.put(server.url(path + oid), headers=server.app_headers(),
                         json={"deviceType": "android", "badge": 9})
        assert_error(r, 136)
    after = requests.get(server.url("/installations/" + oid), headers=server.app_headers()).json()
    assert after == before


def test_bad_channel_on_put_is_112(server, created, no_new_events):
    oid, before = created
    r = requests.put(server.url("/installations/" + oid), headers=server.app_headers(),
                     json={"channels": {"__op": "AddUnique", "objects": ["no spaces"]}})
    assert_error(r, 112)
    assert requests.get(server.url("/installations/" + oid), headers=server.app_headers()).json() == before


@pytest.mark.parametrize("raw", ['{"deviceType": "ios", ', "not json", '{"deviceType": "ios"}}', '["ios"]'],
                         ids=["truncated", "text", "trailing-brace", "not-an-object"])
def test_malformed_json_is_107(server, no_new_events, raw):
    r = requests.post(server.url("/installations"), headers=server.app_headers(), data=raw.encode())
    assert_error(r, 107)


def test_malformed_json_on_put_is_107(server, created, no_new_events):
    oid, before = created
    r = requests.put(server.url("/installations/" + oid), headers=server.app_headers(), data=b'{"badge": 1')
    assert_error(r, 107)
    assert requests.get(server.url("/installations/" + oid), headers=server.app_headers()).json() == before


@pytest.mark.parametrize("where", [
    {"channels": {"$foo": "a"}},
    {"$not": [{"badge": 1}]},  # $not is field-level only
    {"badge": {"$in": 5}},
    {"$nor": []},
    {"badge": {"$not": 1}},
], ids=["unknown-field-op", "unknown-top-op", "bad-operand", "empty-nor", "not-without-operators"])
def test_bad_where_is_102(server, no_new_events, where):
    for path in ("/installations", "/classes/_Installation"):
        r = requests.get(server.url(path), headers=server.master_headers(),
                         params={"where": json.dumps(where)})
        assert_error(r, 102)


@pytest.mark.parametrize("headers", [
    lambda s: {"X-LC-Id": s.app_id, "X-LC-Key": "wrong"},
    lambda s: {"X-LC-Id": s.app_id, "X-LC-Key": s.app_key + ",master"},
    lambda s: {"X-LC-Id": s.app_id, "X-LC-Key": "wrong,master"},
    lambda s: {"X-LC-Id": "no-such-app", "X-LC-Key": s.app_key},
    lambda s: {"X-LC-Key": s.app_key},
    lambda s: {"X-LC-Id": s.app_id},
    lambda s: s.signed(s.app_id, "wrong"),
    lambda s: s.signed(s.app_id, s.app_key, master=True),
    lambda s: {"X-AVOSCloud-Application-Id": s.app_id, "X-AVOSCloud-Application-Key": "wrong"},
], ids=["wrong-key", "app-key-as-master", "wrong-master", "unknown-app", "no-id", "no-key",
        "wrong-sign", "app-key-signed-as-master", "legacy-wrong-key"])
def test_bad_credentials_are_401(server, no_new_events, headers):
    h = dict(headers(server), **{"Content-Type": "application/json"})
    r = requests.post(server.url("/installations"), headers=h, json=ios_body())
    assert r.status_code == 401, r.text
    assert r.json() == UNAUTHORIZED
    r = requests.get(server.url("/classes/_Installation"), headers=h)
    assert r.status_code == 401 and r.json() == UNAUTHORIZED, r.text


def test_signature_window(server, no_new_events):
    now = int(time.time() * 1000)
    for ts in (now - 16 * 60 * 1000, now - 60 * 60 * 1000, now + 16 * 60 * 1000):
        r = requests.post(server.url("/installations"), json=ios_body(),
                          headers=server.signed(server.app_id, server.app_key, timestamp_ms=ts))
        assert r.status_code == 401 and r.json() == UNAUTHORIZED, (ts - now, r.status_code, r.text)
        r = requests.get(server.url("/installations"),
                         headers=server.signed(server.app_id, server.master_key, master=True, timestamp_ms=ts))
        assert r.status_code == 401 and r.json() == UNAUTHORIZED, (ts - now, r.status_code, r.text)
    # Within the window (14 minutes old) the same signature scheme is accepted.
    r = requests.get(server.url("/installations"), params={"limit": 1},
                     headers=server.signed(server.app_id, server.master_key, master=True,
                                           timestamp_ms=now - 14 * 60 * 1000))
    assert r.status_code == 200, r.text


def test_body_over_64_kib_is_413(server):
    before = server.event_count()
    big = json.dumps(ios_body(pad="x" * (70 * 1024))).encode()
    r = requests.post(server.url("/installations"), headers=server.app_headers(), data=big)
    assert r.status_code == 413, (r.status_code, r.text[:200])
    assert isinstance(r.json().get("code"), int) and r.json().get("error"), r.text

    # Just under the limit is accepted (one create event).
    ok = json.dumps(ios_body(pad="z" * (60 * 1024))).encode()
    assert len(ok) < 64 * 1024
    r = requests.post(server.url("/installations"), headers=server.app_headers(), data=ok)
    assert r.status_code == 201, (r.status_code, r.text[:200])
    assert server.event_count() == before + 1


def test_chunked_body_over_64_kib_is_413(server, no_new_events):
    """Without a Content-Length the server must stop reading at the limit and answer 413 (SPEC §2)."""
    def chunks():
        yield b'{"deviceType":"ios","deviceToken":"' + secrets.token_hex(32).encode() + b'","pad":"'
        for _ in range(80):
            yield b"y" * 1024
        yield b'"}'

    r = requests.post(server.url("/installations"), headers=server.app_headers(), data=chunks())
    assert r.status_code == 413, (r.status_code, r.text[:200])
    assert isinstance(r.json().get("code"), int) and r.json().get("error"), r.text


def test_legacy_avoscloud_headers(server):
    legacy_app = {"X-AVOSCloud-Application-Id": server.app_id,
                  "X-AVOSCloud-Application-Key": server.app_key, "Content-Type": "application/json"}
    tok = secrets.token_hex(32)
    r = requests.post(server.url("/installations"), headers=legacy_app,
                      json={"deviceType": "ios", "deviceToken": tok, "channels": ["legacy"]})
    assert r.status_code == 201, r.text
    oid = r.json()["objectId"]
    r = requests.get(server.url("/installations/" + oid), headers=legacy_app)
    assert r.status_code == 200 and r.json()["deviceToken"] == tok, r.text
    r = requests.put(server.url("/installations/" + oid), headers=legacy_app, json={"badge": 3})
    assert r.status_code == 200 and "updatedAt" in r.json(), r.text

    # Listing needs the master key: legacy app key → 403/119, legacy master key → results.
    r = requests.get(server.url("/installations"), headers=legacy_app)
    assert_error(r, 119, 403)
    legacy_master = {"X-AVOSCloud-Application-Id": server.app_id, "X-AVOSCloud-Master-Key": server.master_key}
    r = requests.get(server.url("/installations"), headers=legacy_master,
                     params={"where": json.dumps({"objectId": oid}), "count": 1})
    assert r.status_code == 200, r.text
    assert [o["objectId"] for o in r.json()["results"]] == [oid] and r.json()["count"] == 1
    assert r.json()["results"][0]["badge"] == 3

    # Legacy signature header, app key and master key.
    ts = str(int(time.time() * 1000))
    sig = hashlib.md5((ts + server.app_key).encode()).hexdigest() + "," + ts
    r = requests.get(server.url("/installations/" + oid),
                     headers={"X-AVOSCloud-Application-Id": server.app_id, "X-AVOSCloud-Request-Sign": sig})
    assert r.status_code == 200 and r.json()["objectId"] == oid, r.text
    msig = hashlib.md5((ts + server.master_key).encode()).hexdigest() + "," + ts + ",master"
    r = requests.delete(server.url("/installations/" + oid),
                        headers={"X-AVOSCloud-Application-Id": server.app_id, "X-AVOSCloud-Request-Sign": msig})
    assert r.status_code == 200, r.text
    r = requests.get(server.url("/installations/" + oid), headers=legacy_app)
    assert_error(r, 101, 404)


@pytest.mark.parametrize("path", ["/installations", "/classes/_Installation"])
def test_listing_without_master_is_403_119(server, no_new_events, path):
    for headers in (server.app_headers(), server.signed(server.app_id, server.app_key)):
        r = requests.get(server.url(path), headers=headers)
        assert_error(r, 119, 403)
        r = requests.get(server.url(path), headers=headers, params={"where": "{}", "count": 1, "limit": 0})
        assert_error(r, 119, 403)
    r = requests.get(server.url(path), headers=server.master_headers(), params={"count": 1, "limit": 0})
    assert r.status_code == 200, r.text
    assert r.json()["results"] == [] and isinstance(r.json()["count"], int)


def test_unknown_object_is_404_101(server, no_new_events):
    for path in ("/installations/", "/classes/_Installation/"):
        r = requests.get(server.url(path + "doesnotexist0000000000"), headers=server.app_headers())
        assert_error(r, 101, 404)
        r = requests.put(server.url(path + "doesnotexist0000000000"), headers=server.app_headers(),
                         json={"badge": 1})
        assert_error(r, 101, 404)
        r = requests.delete(server.url(path + "doesnotexist0000000000"), headers=server.master_headers())
        assert r.status_code < 500 and isinstance(r.json(), dict), r.text
