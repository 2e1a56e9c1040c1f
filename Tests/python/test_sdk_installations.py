"""The official LeanCloud Python SDK (unchanged) against PushLedger's `_Installation` API (SPEC §3)."""

import datetime
import re

import pytest
import requests

OBJECT_ID = re.compile(r"^[0-9A-Za-z]{10,32}$")
DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def save_ios(lc, token, channels=None, **fields):
    inst = lc.Installation()
    inst.set("deviceType", "ios")
    inst.set("deviceToken", token)
    if channels is not None:
        inst.set("channels", channels)
    for k, v in fields.items():
        inst.set(k, v)
    inst.save()
    return inst


def test_sdk_wire_format(server, sdk, token, channel):
    """Records what the SDK really sends (via its public request_hooks), so the paths below are facts."""
    seen = []
    sdk.lc.client.request_hooks["response"] = lambda r, *a, **k: seen.append(r)
    inst = save_ios(sdk.lc, token(), [channel()])
    sdk.fetch(inst.id)
    sdk.as_master()
    q = sdk.lc.Query("_Installation")
    q.equal_to("objectId", inst.id)
    assert [o.id for o in q.find()] == [inst.id]
    assert q.count() == 1
    sdk.lc.client.request_hooks.clear()

    reqs = [r.request for r in seen]
    assert [(r.method, requests.utils.urlparse(r.url).path) for r in reqs] == [
        ("POST", "/1.1/classes/_Installation"),
        ("GET", "/1.1/classes/_Installation/" + inst.id),
        ("GET", "/1.1/classes/_Installation"),
        ("GET", "/1.1/classes/_Installation"),
    ]
    assert all(r.status_code in (200, 201) for r in seen)
    assert seen[0].status_code == 201 and seen[0].headers.get("Location")
    assert all(r.headers["X-LC-Id"] == server.app_id for r in reqs)
    assert all("X-LC-Key" not in r.headers for r in reqs)  # the Python SDK only signs
    assert re.fullmatch(r"[0-9a-f]{32},\d{13}", reqs[0].headers["X-LC-Sign"])
    assert re.fullmatch(r"[0-9a-f]{32},\d{13},master", reqs[2].headers["X-LC-Sign"])
    count_query = requests.utils.urlparse(reqs[3].url).query
    assert "count=1" in count_query and "limit=0" in count_query and "where=" in count_query


def test_save_and_fetch_installation(server, sdk, token, channel):
    tok = token()
    chans = [channel(), channel()]
    events_before = server.event_count()
    seen_at = datetime.datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=datetime.timezone.utc)
    inst = save_ios(sdk.lc, tok, chans, timeZone="Asia/Shanghai", appVersion="1.2.3",
                    lastSeen=seen_at, profile={"level": 3, "tags": ["x", "y"]})
    assert OBJECT_ID.match(inst.id), inst.id
    assert isinstance(inst.created_at, datetime.datetime)
    assert server.event_count() == events_before + 1

    got = sdk.fetch(inst.id)
    assert got.id == inst.id
    assert got.get("deviceType") == "ios"
    assert got.get("deviceToken") == tok.lower()
    assert got.get("channels") == chans
    assert got.get("timeZone") == "Asia/Shanghai"
    assert got.get("appVersion") == "1.2.3"
    assert got.get("lastSeen") == seen_at  # custom Date field ({"__type":"Date"}) round-trips
    assert got.get("profile") == {"level": 3, "tags": ["x", "y"]}
    assert got.created_at == inst.created_at
    assert got.updated_at is not None and got.updated_at >= got.created_at
    # The projection holds the normalised token too.
    assert server.sql("SELECT device_token FROM installations WHERE object_id = '%s'" % inst.id) == tok.lower()

    # Raw view of the same object: exact date format.
    body = requests.get(server.url("/classes/_Installation/" + inst.id), headers=server.app_headers()).json()
    assert DATE.match(body["createdAt"]) and DATE.match(body["updatedAt"]), body
    assert body["objectId"] == inst.id and body["deviceToken"] == tok.lower()


def test_update_with_operations(server, sdk, token, channel):
    a, b, c = channel("a"), channel("b"), channel("c")
    inst = save_ios(sdk.lc, token(), [a, b], badge=1)
    created = sdk.fetch(inst.id)

    # One save: two AddUnique (one already present) merged by the SDK into one op, plus Increment.
    inst.add_unique("channels", c)
    inst.add_unique("channels", a)
    inst.increment("badge", 2)
    inst.save()
    mid = sdk.fetch(inst.id)
    assert mid.get("channels") == [a, b, c]
    assert mid.get("badge") == 3
    assert mid.updated_at > created.updated_at

    # The SDK refuses to merge Remove into AddUnique locally, so the remove is a second save.
    inst.remove("channels", a)
    inst.increment("badge", 5)
    inst.save()
    got = sdk.fetch(inst.id)
    assert got.get("channels") == [b, c]
    assert got.get("badge") == 8
    assert got.updated_at > mid.updated_at
    assert got.created_at == created.created_at


def test_query_by_channel_with_master_key(server, sdk, token, channel):
    x, y, z = channel("x"), channel("y"), channel("z")
    i1 = save_ios(sdk.lc, token(), [x, y], badge=1)
    i2 = save_ios(sdk.lc, token(), [x], badge=5)
    i3 = save_ios(sdk.lc, token(), [y], badge=10)
    save_ios(sdk.lc, token(), [z], badge=20)  # never matched below

    lc = sdk.as_master()
    q = lc.Installation.query
    q.equal_to("channels", x)
    found = q.find()
    assert sorted(o.id for o in found) == sorted([i1.id, i2.id])
    assert all(o.get("deviceType") == "ios" and x in o.get("channels") for o in found)
    assert q.count() == 2

    q = lc.Query("_Installation")
    q.contained_in("channels", [y, "nobody_" + z])
    assert sorted(o.id for o in q.find()) == sorted([i1.id, i3.id])
    assert q.count() == 2

    q = lc.Query("_Installation")
    q.contained_in("channels", [x, y])
    q.greater_than("badge", 3)
    q.ascending("badge")
    assert [o.id for o in q.find()] == [i2.id, i3.id]
    assert q.count() == 2

    q = lc.Query("_Installation")
    q.equal_to("channels", x)
    q.limit(1)
    q.descending("badge")
    assert [o.id for o in q.find()] == [i2.id]

    q = lc.Query("_Installation")
    q.equal_to("channels", "nobody_" + x)
    assert q.find() == [] and q.count() == 0


def test_query_operators_via_sdk(server, sdk, token, channel):
    """The other operators the SDK's Query builds, scoped by a custom field unique to this test."""
    suite = channel("suite")
    t0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    i1 = save_ios(sdk.lc, token(), ["news_sport", "vip"], suite=suite, seen=t0, badge=0)
    i2 = save_ios(sdk.lc, token(), ["news_tech"], suite=suite, seen=t0 + datetime.timedelta(days=2), badge=4)
    i3 = save_ios(sdk.lc, token(), ["other", "vip", "x"], suite=suite, badge=9)
    lc = sdk.as_master()

    def ids(build):
        q = lc.Query("_Installation")
        q.equal_to("suite", suite)
        build(q)
        found = sorted(o.id for o in q.find())
        assert q.count() == len(found)
        return found

    assert ids(lambda q: q.startswith("channels", "news_")) == sorted([i1.id, i2.id])  # $regex "^\\Q..\\E"
    assert ids(lambda q: q.matched("channels", "^NEWS_T", ignore_case=True)) == [i2.id]
    assert ids(lambda q: q.contains_all("channels", ["vip", "x"])) == [i3.id]
    assert ids(lambda q: q.not_equal_to("channels", "vip")) == [i2.id]
    assert ids(lambda q: q.size_equal_to("channels", 3)) == [i3.id]
    assert ids(lambda q: q.exists("seen")) == sorted([i1.id, i2.id])
    assert ids(lambda q: q.does_not_exist("seen")) == [i3.id]
    assert ids(lambda q: q.greater_than("seen", t0 + datetime.timedelta(days=1))) == [i2.id]
    assert ids(lambda q: q.less_than_or_equal_to("badge", 4)) == sorted([i1.id, i2.id])
    assert ids(lambda q: q.not_contained_in("channels", ["vip"])) == [i2.id]
    first = lc.Query("_Installation").equal_to("suite", suite).descending("badge").first()
    assert first.id == i3.id and first.get("badge") == 9
    assert lc.Query("_Installation").get(i2.id).get("channels") == ["news_tech"]


def test_delete_with_master_key(server, sdk, token, channel):
    inst = save_ios(sdk.lc, token(), [channel()])
    # Deleting needs the master key (SPEC §1): the app key is refused and nothing changes.
    events = server.event_count()
    with pytest.raises(sdk.lc.LeanCloudError):
        inst.destroy()
    assert server.event_count() == events
    assert sdk.fetch(inst.id).id == inst.id

    sdk.as_master()
    inst.destroy()
    assert server.event_count() == events + 1
    with pytest.raises(sdk.lc.LeanCloudError) as err:
        sdk.fetch(inst.id)
    assert err.value.code == 101
    r = requests.get(server.url("/installations/" + inst.id), headers=server.master_headers())
    assert r.status_code == 404 and r.json()["code"] == 101
    q = sdk.lc.Query("_Installation")
    q.equal_to("objectId", inst.id)
    assert q.count() == 0
    assert server.sql("SELECT count(*) FROM installations WHERE object_id = '%s'" % inst.id) == "0"


def test_second_save_with_same_token_is_an_upsert(server, sdk, token, channel):
    tok = token()
    c1, c2 = channel(), channel()
    first = save_ios(sdk.lc, tok, [c1])
    # Same token, different case, in a brand-new SDK object.
    second = save_ios(sdk.lc, tok.lower(), [c2], badge=4)
    assert second.id == first.id
    assert second.created_at == first.created_at

    got = sdk.fetch(first.id)
    assert got.get("channels") == [c2]
    assert got.get("badge") == 4
    assert got.get("deviceToken") == tok.lower()
    assert server.sql(
        "SELECT count(*) FROM installations WHERE device_token = '%s'" % tok.lower()) == "1"

    # On the wire: a real create is 201 + Location, the upsert is 200 with the same objectId.
    tok2 = token()
    r1 = requests.post(server.url("/installations"), headers=server.app_headers(),
                       json={"deviceType": "ios", "deviceToken": tok2})
    assert r1.status_code == 201, r1.text
    assert r1.headers.get("Location", "").endswith(r1.json()["objectId"])
    r2 = requests.post(server.url("/classes/_Installation"), headers=server.app_headers(),
                       json={"deviceType": "ios", "deviceToken": tok2.lower(), "badge": 2})
    assert r2.status_code == 200, r2.text
    body = r2.json()
    assert body["objectId"] == r1.json()["objectId"]
    assert body["createdAt"] == r1.json()["createdAt"] and "updatedAt" in body


def test_windows_installation_via_sdk(server, sdk, token, channel):
    """A Windows Phone SDK's `wp` installation is stored as `windows`, upserted by installationId, queryable,
    and refused without an https channel URI (issue 15)."""
    iid, chan = "win-" + token()[:16], channel()
    uri = "https://db5.notify.windows.com/?token=AwYAAAD" + token()[:12]
    inst = sdk.lc.Installation()
    for k, v in {"deviceType": "wp", "installationId": iid, "subscriptionUri": uri, "channels": [chan]}.items():
        inst.set(k, v)
    inst.save()
    got = sdk.fetch(inst.id)
    assert got.get("deviceType") == "windows"
    assert got.get("subscriptionUri") == uri

    again = sdk.lc.Installation()
    for k, v in {"deviceType": "windows", "installationId": iid, "badge": 3}.items():
        again.set(k, v)
    again.save()
    assert again.id == inst.id

    sdk.as_master()
    q = sdk.lc.Query("_Installation")
    q.equal_to("deviceType", "windows")
    q.equal_to("channels", chan)
    assert [o.id for o in q.find()] == [inst.id]
    sdk.as_app()

    bad = sdk.lc.Installation()
    for k, v in {"deviceType": "windows", "installationId": iid + "x", "subscriptionUri": "http://x/1"}.items():
        bad.set(k, v)
    with pytest.raises(sdk.lc.LeanCloudError) as err:
        bad.save()
    assert err.value.code == 1
