"""Objects of other classes, `_User` and batch (issue 16, items 1-2): raw REST and the official LeanCloud Python
SDK (unchanged) against `/1.1/classes/:className`, `/1.1/users` and `/1.1/batch`; typed values (Pointer,
GeoPoint, Date, Bytes) round-trip; refused input answers LeanCloud codes and writes no event."""

import json
import re
import secrets

import pytest
import requests

OBJECT_ID = re.compile(r"^[0-9A-Za-z]{10,32}$")
DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def cls(prefix="Team"):
    """A class of its own per test, so inferred types never leak between tests."""
    return prefix + secrets.token_hex(4)


def post(server, path, body, master=False):
    headers = server.master_headers() if master else server.app_headers()
    return requests.post(server.url(path), data=json.dumps(body), headers=headers, timeout=10)


def put(server, path, body, master=False):
    headers = server.master_headers() if master else server.app_headers()
    return requests.put(server.url(path), data=json.dumps(body), headers=headers, timeout=10)


def get(server, path, master=False, **params):
    headers = server.master_headers() if master else server.app_headers()
    return requests.get(server.url(path), params=params, headers=headers, timeout=10)


def refused(server, response_fn, status, code):
    """Runs response_fn, expects status/code, and that no event was written."""
    before = server.event_count()
    r = response_fn()
    assert r.status_code == status, r.text
    assert r.json()["code"] == code, r.text
    assert server.event_count() == before
    return r.json()


def test_crud_with_app_key_and_typed_values_round_trip(server):
    name = cls()
    raw = ('{"city":"Beijing","loc":{"__type":"GeoPoint","latitude":39.99,"longitude":116.31},'
           '"owner":{"__type":"Pointer","className":"_User","objectId":"u1"},'
           '"when":{"__type":"Date","iso":"2026-03-04T05:06:07.891Z"},'
           '"blob":{"__type":"Bytes","base64":"aGVsbG8="},"n":1,"tags":["a"],"ok":true,"meta":{"x":[1,2]}}')
    before = server.event_count()
    r = requests.post(server.url("/classes/" + name), data=raw, headers=server.app_headers(), timeout=10)
    assert r.status_code == 201, r.text
    body = r.json()
    assert OBJECT_ID.match(body["objectId"]) and DATE.match(body["createdAt"])
    assert r.headers["Location"] == "/1.1/classes/%s/%s" % (name, body["objectId"])
    assert server.event_count() == before + 1
    oid = body["objectId"]

    got = get(server, "/classes/%s/%s" % (name, oid)).json()
    sent = json.loads(raw)
    for key, value in sent.items():
        assert got[key] == value, key  # typed values come back exactly as sent
    assert got["objectId"] == oid and got["createdAt"] == got["updatedAt"] == body["createdAt"]
    assert set(get(server, "/classes/%s/%s" % (name, oid), keys="city,n").json()) == {
        "city", "n", "objectId", "createdAt", "updatedAt"}

    r = put(server, "/classes/%s/%s" % (name, oid), {
        "n": {"__op": "Increment", "amount": 4}, "tags": {"__op": "AddUnique", "objects": ["a", "b"]},
        "ok": {"__op": "Delete"}, "city": "Shanghai"})
    assert r.status_code == 200 and DATE.match(r.json()["updatedAt"]), r.text
    got = get(server, "/classes/%s/%s" % (name, oid)).json()
    assert got["n"] == 5 and got["tags"] == ["a", "b"] and "ok" not in got and got["city"] == "Shanghai"
    r = put(server, "/classes/%s/%s" % (name, oid), {"tags": {"__op": "Remove", "objects": ["a"]},
                                                    "n": {"__op": "Increment", "amount": -2}})
    got = get(server, "/classes/%s/%s" % (name, oid)).json()
    assert got["tags"] == ["b"] and got["n"] == 3

    r = requests.delete(server.url("/classes/%s/%s" % (name, oid)), headers=server.app_headers(), timeout=10)
    assert r.status_code == 200 and r.json() == {}
    assert get(server, "/classes/%s/%s" % (name, oid)).status_code == 404
    refused(server, lambda: put(server, "/classes/%s/%s" % (name, oid), {"city": "x"}), 404, 101)


def test_query_where_order_limit_skip_count_keys(server):
    name = cls()
    for i, city in enumerate(["Beijing", "Shanghai", "Beijing", "Shenzhen", "Beijing"]):
        assert post(server, "/classes/" + name, {"city": city, "rank": i, "tags": ["t%d" % (i % 2)]}).status_code == 201
    r = get(server, "/classes/" + name, where=json.dumps({"city": "Beijing"}), order="-rank", count=1)
    body = r.json()
    assert r.status_code == 200 and body["count"] == 3
    assert [o["rank"] for o in body["results"]] == [4, 2, 0]
    body = get(server, "/classes/" + name, where=json.dumps({"rank": {"$gte": 1}, "tags": "t1"}), order="rank").json()
    assert [o["rank"] for o in body["results"]] == [1, 3]
    body = get(server, "/classes/" + name, order="rank", limit=2, skip=1, keys="rank").json()
    assert [o["rank"] for o in body["results"]] == [1, 2] and "city" not in body["results"][0]
    body = get(server, "/classes/" + name, where=json.dumps({"city": {"$regex": "^Sh"}}), count=1, limit=0).json()
    assert body == {"results": [], "count": 2}
    # Other classes' and other apps' objects never show up.
    assert get(server, "/classes/" + cls(), count=1).json() == {"results": [], "count": 0}
    refused(server, lambda: get(server, "/classes/" + name, where=json.dumps({"rank": {"$bogus": 1}})), 400, 102)


def test_bad_input_is_refused_with_codes_and_writes_nothing(server):
    name = cls()
    oid = post(server, "/classes/" + name, {"loc": {"__type": "GeoPoint", "latitude": 1, "longitude": 2},
                                           "city": "Beijing"}).json()["objectId"]
    bad_geo = {"__type": "GeoPoint", "latitude": 200, "longitude": 0}
    assert refused(server, lambda: post(server, "/classes/" + name, {"loc": bad_geo}), 400, 111)["error"] == \
        "This is not a valid GeoPoint"
    refused(server, lambda: post(server, "/classes/" + cls(), {"loc": {"__type": "GeoPoint", "latitude": "1",
                                                                     "longitude": 0}}), 400, 111)
    err = refused(server, lambda: put(server, "/classes/%s/%s" % (name, oid), {"loc": "here", "x": 1}), 400, 111)
    assert err["error"] == "Invalid value type for field 'loc', expected GeoPoint but got String"
    refused(server, lambda: post(server, "/classes/" + name, {"city": 3}), 400, 111)
    refused(server, lambda: post(server, "/classes/" + name, {"home": {"__type": "GeoPoint", "latitude": 0,
                                                                       "longitude": 0}}), 400, 111)
    refused(server, lambda: post(server, "/classes/" + name, {"p": {"__type": "Pointer", "className": "_User"}}),
            400, 111)
    refused(server, lambda: post(server, "/classes/" + name, {"d": {"__type": "Date", "iso": "soon"}}), 400, 111)
    refused(server, lambda: post(server, "/classes/" + name, {"b": {"__type": "Bytes", "base64": "!!"}}), 400, 111)
    for bad in ["_Foo", "_Role", "9lives", "Bad-Name"]:
        refused(server, lambda: post(server, "/classes/" + bad, {"a": 1}), 400, 103)
        refused(server, lambda: get(server, "/classes/" + bad), 400, 103)
    refused(server, lambda: post(server, "/classes/" + name, {"bad-field": 1}), 400, 105)
    refused(server, lambda: requests.post(server.url("/classes/" + name), data="{nope", headers=server.app_headers(),
                                          timeout=10), 400, 107)
    refused(server, lambda: get(server, "/classes/%s/%s" % (name, "nosuchobject")), 404, 101)
    # The stored object is untouched by all of that.
    got = get(server, "/classes/%s/%s" % (name, oid)).json()
    assert got["city"] == "Beijing" and got["loc"]["latitude"] == 1


def test_installation_typed_fields_are_validated(server, token):
    good = {"deviceType": "ios", "deviceToken": token(),
            "owner": {"__type": "Pointer", "className": "_User", "objectId": "someone"}}
    r = post(server, "/installations", good, master=True)  # owner: a user, only by master key or session
    assert r.status_code == 201, r.text
    got = get(server, "/installations/" + r.json()["objectId"]).json()
    assert got["owner"] == good["owner"]
    refused(server, lambda: post(server, "/installations", {
        "deviceType": "ios", "deviceToken": token(), "owner": {"__type": "Pointer", "objectId": "x"}}), 400, 111)
    refused(server, lambda: put(server, "/installations/" + r.json()["objectId"], {
        "where": {"__type": "GeoPoint", "latitude": 0, "longitude": 181}}), 400, 111)


def test_users_sign_up_with_a_password_that_is_never_stored_as_a_field(server):
    """Users' own flows are test_sdk_users.py's; here, what stays of the master-key class: an app-key create
    is a sign-up (both username and password), listing needs the master key, and no route stores a password
    as a field."""
    before = server.event_count()
    for call, code in [(lambda: post(server, "/users", {"username": "ann"}), 201), (lambda: get(server, "/users"), 119),
                       (lambda: post(server, "/classes/_User", {"city": "x"}), 200)]:
        r = call()
        assert r.json()["code"] == code, r.text
    assert server.event_count() == before
    r = post(server, "/users", {"username": "ann", "location": {"__type": "GeoPoint", "latitude": 39.99,
                                                               "longitude": 116.31}}, master=True)
    assert r.status_code == 201, r.text
    uid = r.json()["objectId"]
    assert r.headers["Location"] == "/1.1/users/" + uid
    assert get(server, "/users/" + uid, master=True).json()["username"] == "ann"
    assert get(server, "/classes/_User/" + uid, master=True).json()["username"] == "ann"
    assert get(server, "/users/" + uid).status_code == 403
    listed = get(server, "/users", master=True, where=json.dumps({"username": "ann"})).json()["results"]
    assert uid in [u["objectId"] for u in listed]
    batch = post(server, "/batch", {"requests": [{"method": "POST", "path": "/1.1/users",
                                                  "body": {"username": "bob", "password": "hunter2"}}]}, master=True)
    assert batch.json()[0]["error"]["code"] == 1 and "password" in batch.json()[0]["error"]["error"], batch.text
    r = put(server, "/users/" + uid, {"password": "hunter3"}, master=True)
    assert r.status_code == 200 and "sessionToken" in r.json(), r.text
    stored = server.sql("SELECT coalesce(string_agg(data::text, ''), '') FROM events")
    assert "hunter2" not in stored and "hunter3" not in stored


def test_batch(server):
    name = cls()
    before = server.event_count()
    reqs = [{"method": "POST", "path": "/1.1/classes/" + name, "body": {"city": "Beijing", "n": i}} for i in range(3)]
    reqs.append({"method": "POST", "path": "/1.1/classes/" + name, "body": {"city": 7}})  # type clash
    reqs.append({"method": "POST", "path": "/1.1/classes/_Foo", "body": {}})
    reqs.append({"method": "POST", "path": "/1.1/users", "body": {"username": "x"}})  # app key: refused
    reqs.append({"method": "PATCH", "path": "/1.1/classes/" + name, "body": {}})
    r = post(server, "/batch", {"requests": reqs})
    assert r.status_code == 200, r.text
    out = r.json()
    assert len(out) == 7
    ids = [o["success"]["objectId"] for o in out[:3]]
    assert all(OBJECT_ID.match(i) for i in ids)
    assert out[3]["error"]["code"] == 111 and out[4]["error"]["code"] == 103 and out[5]["error"]["code"] == 119
    assert out[6]["error"]["code"] == 1
    assert server.event_count() == before + 3  # one event per successful request, none for the failures
    r = post(server, "/batch", {"requests": [
        {"method": "PUT", "path": "/1.1/classes/%s/%s" % (name, ids[0]), "body": {"n": {"__op": "Increment"}}},
        {"method": "DELETE", "path": "/1.1/classes/%s/%s" % (name, ids[1])},
        {"method": "GET", "path": "/1.1/classes/%s/%s" % (name, ids[2])},
        {"method": "DELETE", "path": "/1.1/classes/%s/%s" % (name, ids[1])},
    ]})
    out = r.json()
    assert DATE.match(out[0]["success"]["updatedAt"]) and out[1] == {"success": {}}
    assert out[2]["success"]["n"] == 2 and out[3]["error"]["code"] == 101
    assert get(server, "/classes/%s/%s" % (name, ids[0])).json()["n"] == 1
    # Bad batches as a whole.
    before = server.event_count()
    too_many = [{"method": "POST", "path": "/1.1/classes/" + name, "body": {}}] * 51
    assert post(server, "/batch", {"requests": too_many}).status_code == 400
    assert post(server, "/batch", {"requests": "no"}).json()["code"] == 107
    assert server.event_count() == before


def test_sdk_objects_query_geopoint_and_batch(server, sdk):
    lc = sdk.lc
    name = cls()
    Team = lc.Object.extend(name)
    team = Team()
    team.set("city", "Beijing")
    team.set("location", lc.GeoPoint(39.99, 116.31))
    team.set("founded", __import__("datetime").datetime(2020, 1, 2, 3, 4, 5, tzinfo=__import__("datetime").timezone.utc))
    team.save()
    assert OBJECT_ID.match(team.id)

    fetched = Team.create_without_data(team.id)
    fetched.fetch()
    assert fetched.get("city") == "Beijing"
    point = fetched.get("location")
    assert isinstance(point, lc.GeoPoint) and (point.latitude, point.longitude) == (39.99, 116.31)
    assert fetched.get("founded").year == 2020

    other = Team()
    other.set("city", "Shanghai")
    other.save()
    q = lc.Query(name)
    q.equal_to("city", "Beijing")
    assert [t.id for t in q.find()] == [team.id]
    assert lc.Query(name).count() == 2

    # save_all goes through /1.1/batch.
    many = [Team() for _ in range(3)]
    for i, t in enumerate(many):
        t.set("city", "Shenzhen")
        t.set("n", i)
    lc.Object.save_all(many)
    assert all(t.id for t in many)
    q = lc.Query(name)
    q.equal_to("city", "Shenzhen")
    q.ascending("n")
    assert [t.get("n") for t in q.find()] == [0, 1, 2]

    bad = Team()
    bad.set("location", "not a point")
    with pytest.raises(lc.LeanCloudError) as e:
        bad.save()
    assert e.value.code == 111

    team.destroy()
    with pytest.raises(lc.LeanCloudError) as e:
        Team.create_without_data(team.id).fetch()
    assert e.value.code == 101


def test_sdk_user_with_master_key_and_owner_pointer(server, sdk, token):
    lc = sdk.as_master()
    user = lc.User()
    user.set("username", "sdk_" + secrets.token_hex(4))
    user.set("location", lc.GeoPoint(30.0, -20.0))
    user.save()  # POST /1.1/classes/_User: allowed with the master key
    assert OBJECT_ID.match(user.id)
    got = lc.Query("_User").get(user.id)
    assert got.get("location").latitude == 30.0

    inst = lc.Installation()
    inst.set("deviceType", "ios")
    inst.set("deviceToken", token())
    inst.set("owner", user)
    inst.save()
    stored = get(server, "/installations/" + inst.id).json()
    assert stored["owner"] == {"__type": "Pointer", "className": "_User", "objectId": user.id}

    sdk.as_app()
    anonymous = lc.User()
    anonymous.set("username", "nope")
    with pytest.raises(lc.LeanCloudError) as e:
        anonymous.save()  # a sign-up without a password
    assert e.value.code == 201


def test_another_apps_keys_never_reach_these_objects(server):
    other_id, other_key, other_master = ("pyClsOther" + secrets.token_hex(4), "k" + secrets.token_hex(8),
                                         "m" + secrets.token_hex(8))
    server.create_app("classes-other", other_id, other_key, other_master)
    other = {"X-LC-Id": other_id, "X-LC-Key": other_master + ",master", "Content-Type": "application/json"}
    name = cls()
    oid = post(server, "/classes/" + name, {"city": "Beijing"}).json()["objectId"]
    uid = post(server, "/users", {"username": "iso"}, master=True).json()["objectId"]
    before = server.event_count()
    for path in ["/classes/%s/%s" % (name, oid), "/users/" + uid]:
        r = requests.get(server.url(path), headers=other, timeout=10)
        assert r.status_code == 404 and r.json()["code"] == 101
        r = requests.put(server.url(path), data='{"city":"x"}', headers=other, timeout=10)
        assert r.status_code == 404
        assert requests.delete(server.url(path), headers=other, timeout=10).status_code == 404
    r = requests.get(server.url("/classes/" + name), params={"count": 1}, headers=other, timeout=10)
    assert r.json() == {"results": [], "count": 0}
    # The other app's types are its own: a Number there does not clash with this app's String.
    assert requests.post(server.url("/classes/" + name), data='{"city":1}', headers=other,
                         timeout=10).status_code == 201
    assert server.event_count() == before + 1
    assert get(server, "/classes/%s/%s" % (name, oid)).json()["city"] == "Beijing"
