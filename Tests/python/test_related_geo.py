"""Targeting by related objects and location (issue 16, SPEC §12.1): `$inQuery` (with and without
`className`), `$select`, `$nearSphere` on `_User` locations, in real pushes whose receivers the simulator
confirms. Distances are set by hand: a latitude offset at a fixed longitude is exactly that great-circle
distance (1 mile = 1 / 3958.8 radians).
"""

import json
import math
import secrets
import time
from datetime import datetime, timedelta, timezone

import requests

DONE_TIMEOUT = 30
MILE_DEGREES = math.degrees(1 / 3958.8)


def post(server, app, path, body):
    r = requests.post(server.url(path), json=body, headers=app.master_headers())
    assert r.status_code in (200, 201), r.text
    return r.json()


def user(server, app, **fields):
    return post(server, app, "/users", fields)["objectId"]


def pointer(class_name, object_id):
    return {"__type": "Pointer", "className": class_name, "objectId": object_id}


def device(server, app, **fields):
    token = secrets.token_hex(32)
    post(server, app, "/installations", dict(deviceType="ios", deviceToken=token, **fields))
    return token


def push(server, app, where):
    r = requests.post(server.url("/push"), json={"where": where, "data": {"alert": "near"}},
                      headers=app.master_headers())
    assert r.status_code == 200, r.text
    push_id = r.json()["objectId"]
    deadline = time.monotonic() + DONE_TIMEOUT
    while True:
        rec = requests.get(server.url("/notifications/" + push_id), headers=app.master_headers()).json()
        if rec["status"] == "done":
            return rec
        assert time.monotonic() < deadline, rec
        time.sleep(0.2)


def received(simulator, token):
    return simulator.requests_for(token)["accepted"]


def geo(lat, lng):
    return {"__type": "GeoPoint", "latitude": lat, "longitude": lng}


def test_the_seed_example_reaches_only_the_device_within_a_mile(server, simulator, push_app):
    # The seed's centre is (30.0, -20.0); each run uses its own longitude so runs never see each other's users.
    lng = round(-20.0 + secrets.randbelow(1000) / 10.0, 1)
    inside = user(server, push_app, location=geo(30.0 + 0.69 * MILE_DEGREES, lng))
    farther = user(server, push_app, location=geo(30.0 + 1.5 * MILE_DEGREES, lng))
    nowhere = user(server, push_app, nickname="no location")
    tokens = {name: device(server, push_app, owner=pointer("_User", uid))
              for name, uid in (("inside", inside), ("farther", farther), ("nowhere", nowhere))}
    # The seed's where, verbatim but for the centre's longitude.
    where = {"owner": {"$inQuery": {"location": {"$nearSphere": geo(30.0, lng), "$maxDistanceInMiles": 1.0}}}}
    rec = push(server, push_app, where)
    assert (rec["devices"], rec["successes"]) == (1, 1), rec
    assert {name: received(simulator, t) for name, t in tokens.items()} == {"inside": 1, "farther": 0, "nowhere": 0}


def test_replay_and_explain_read_the_users_where_they_were_at_the_push(server, simulator, push_app):
    lng = round(-20.0 + secrets.randbelow(1000) / 10.0, 1)
    came_near = user(server, push_app, location=geo(30.0 + 1.4 * MILE_DEGREES, lng))
    went_away = user(server, push_app, location=geo(30.0 + 0.5 * MILE_DEGREES, lng))
    installations = {}
    for name, uid in (("came_near", came_near), ("went_away", went_away)):
        token = secrets.token_hex(32)
        body = dict(deviceType="ios", deviceToken=token, owner=pointer("_User", uid))
        installations[name] = (post(server, push_app, "/installations", body)["objectId"], token)
    where = {"owner": {"$inQuery": {"location": {"$nearSphere": geo(30.0, lng), "$maxDistanceInMiles": 1.0}}}}
    rec = push(server, push_app, where)
    assert (rec["devices"], rec["successes"]) == (1, 1), rec
    assert received(simulator, installations["went_away"][1]) == 1
    time.sleep(0.05)
    between = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    time.sleep(0.05)
    # Both users move after the push: the one inside goes 3 miles out, the one outside comes within 0.25 miles.
    for uid, miles in ((went_away, 3.0), (came_near, 0.25)):
        r = requests.put(server.url("/users/" + uid), json={"location": geo(30.0 + miles * MILE_DEGREES, lng)},
                         headers=push_app.master_headers())
        assert r.status_code == 200, r.text

    def replay(at):
        done = server.cli("replay", "--app", push_app.app_id, "--at", at, "--where", json.dumps(where),
                          "--format", "json")
        return json.loads(done.stdout)

    assert replay(between) == [installations["went_away"][0]]
    now = (datetime.now(timezone.utc) + timedelta(seconds=1)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert replay(now) == [installations["came_near"][0]]

    def explain(name):
        done = server.cli("explain", "--app", push_app.app_id, "--push", rec["objectId"], "--installation",
                          installations[name][0], "--format", "json")
        out = json.loads(done.stdout)
        return out, next(c for c in out["conditions"] if c["name"] == "where.owner")

    # At the push the user was 1.4 miles out (the hand-set offset), beyond the mile.
    excluded, owner = explain("came_near")
    assert excluded["verdict"] == "excluded" and excluded["excludedBy"] == "where.owner", excluded
    assert owner["met"] is False and "owner's location 1.40 mi away > 1.0 mi" in owner["value"], owner
    assert excluded["delivery"]["state"] == "not targeted", excluded
    targeted, owner = explain("went_away")
    assert targeted["verdict"] == "targeted" and owner["met"] is True, targeted
    assert "location 0.50 mi away ≤ 1.0 mi" in owner["value"], owner
    assert targeted["delivery"]["state"] == "delivered", targeted


def test_select_targets_installations_whose_user_id_is_a_matching_users_object_id(server, simulator, push_app):
    tag = secrets.token_hex(4)
    vip = user(server, push_app, tier="gold-" + tag)
    other = user(server, push_app, tier="tin-" + tag)
    tokens = {"vip": device(server, push_app, userId=vip), "other": device(server, push_app, userId=other)}
    where = {"userId": {"$select": {"query": {"className": "_User", "where": {"tier": "gold-" + tag}},
                                    "key": "objectId"}}}
    rec = push(server, push_app, where)
    assert (rec["devices"], rec["successes"]) == (1, 1), rec
    assert {n: received(simulator, t) for n, t in tokens.items()} == {"vip": 1, "other": 0}


def test_in_query_on_a_custom_class(server, simulator, push_app):
    city = "Beijing-" + secrets.token_hex(3)
    beijing = post(server, push_app, "/classes/Team", {"city": city})["objectId"]
    shanghai = post(server, push_app, "/classes/Team", {"city": "Shanghai"})["objectId"]
    tokens = {"beijing": device(server, push_app, team=pointer("Team", beijing)),
              "shanghai": device(server, push_app, team=pointer("Team", shanghai)),
              "none": device(server, push_app)}
    rec = push(server, push_app, {"team": {"$inQuery": {"className": "Team", "where": {"city": city}}}})
    assert (rec["devices"], rec["successes"]) == (1, 1), rec
    assert {n: received(simulator, t) for n, t in tokens.items()} == {"beijing": 1, "shanghai": 0, "none": 0}
    # $notInQuery: every other device of the app, including those without a team, but not the Beijing one.
    listed = requests.get(server.url("/installations"), headers=push_app.master_headers(), params={
        "where": '{"team": {"$notInQuery": {"className": "Team", "where": {"city": "%s"}}}}' % city,
        "limit": 1000}).json()["results"]
    listed_tokens = {i.get("deviceToken") for i in listed}
    assert tokens["shanghai"] in listed_tokens and tokens["none"] in listed_tokens
    assert tokens["beijing"] not in listed_tokens


def test_bad_operands_are_refused_and_nothing_is_stored(server, push_app):
    before = server.event_count(push_app.app_id)
    bad = [
        ({"owner": {"$inQuery": {"location": {"$nearSphere": geo(200, 0), "$maxDistanceInMiles": 1}}}}, 111),
        ({"loc": {"$nearSphere": {"latitude": 1}}}, 107),
        ({"loc": {"$maxDistanceInMiles": 1}}, 102),
        ({"owner": {"$inQuery": {"className": "_Nope!", "where": {}}}}, 103),
        ({"owner": {"$inQuery": {"className": "NeverSaved" + secrets.token_hex(3), "where": {}}}}, 101),
        ({"u": {"$select": {"query": {"className": "NeverSaved" + secrets.token_hex(3)}, "key": "k"}}}, 101),
        ({"owner": {"$inQuery": {"className": "Team", "where": []}}}, 102),
        ({"objectId": {"$inQuery": {"className": "Team", "where": {}}}}, 102),
        ({"userId": {"$select": {"query": {"className": "_User"}, "key": "objectId", "extra": 1}}}, 102),
        ({"loc": {"$within": {"$box": [geo(10, 10)]}}}, 107),
        ({"loc": {"$geoWithin": {"$polygon": [[0, 0], [1, 1]]}}}, 107),
    ]
    for where, code in bad:
        r = requests.post(server.url("/push"), json={"where": where, "data": {"alert": "x"}},
                          headers=push_app.master_headers())
        assert r.status_code == 400 and r.json()["code"] == code, (where, r.text)
    assert server.event_count(push_app.app_id) == before


def test_box_polygon_and_center_sphere_over_installations(server, push_app):
    """Geo operators on an installation's own GeoPoint field, listed with the master key."""
    tag = secrets.token_hex(4)
    spots = {"a": geo(10.0, 10.0), "b": geo(10.5, 10.5), "c": geo(20.0, 20.0), "dateline": geo(0.0, 179.5)}
    for name, point in spots.items():
        post(server, push_app, "/installations",
             {"deviceType": "ios", "deviceToken": secrets.token_hex(32), "spot": point, "tag": tag, "name": name})

    def names(condition):
        where = '{"tag": "%s", "spot": %s}' % (tag, condition)
        r = requests.get(server.url("/installations"), headers=push_app.master_headers(), params={"where": where})
        assert r.status_code == 200, r.text
        return sorted(i["name"] for i in r.json()["results"])

    import json as _json
    box = _json.dumps({"$within": {"$box": [geo(9.5, 9.5), geo(10.5, 10.5)]}})
    assert names(box) == ["a", "b"]  # inclusive: b sits on the corner
    across = _json.dumps({"$within": {"$box": [geo(-1, 179), geo(1, -179)]}})
    assert names(across) == ["dateline"]
    polygon = _json.dumps({"$geoWithin": {"$polygon": [[9, 9], [11, 9], [11, 11], [9, 11]]}})
    assert names(polygon) == ["a", "b"]
    # 0.6 degrees of latitude from (10.0, 10.0) reaches a (0) but not b (~0.7 degrees away).
    sphere = _json.dumps({"$geoWithin": {"$centerSphere": [[10.0, 10.0], math.radians(0.6)]}})
    assert names(sphere) == ["a"]


def test_the_official_sdk_queries_unchanged(server, sdk):
    """leancloud.Query's near / within_miles / within_kilometers / within_geo_box, matches_query,
    does_not_match_query and matches_key_in_query, against /1.1/classes and /1.1/installations."""
    lc = sdk.as_master()
    try:
        lng = round(60.0 + secrets.randbelow(1000) / 10.0, 1)
        tag = "sdk-" + secrets.token_hex(4)
        users = {}
        for name, miles in (("near", 0.5), ("mid", 3.0), ("far", 40.0)):
            u = lc.User()
            u.set("tag", tag)
            u.set("location", lc.GeoPoint(10.0 + miles * MILE_DEGREES, lng))
            u.save()
            users[name] = u
        center = lc.GeoPoint(10.0, lng)

        def names(query):
            return [next(n for n, u in users.items() if u.id == o.id) for o in query.find()]

        q = lc.Query("_User").equal_to("tag", tag)
        assert names(q.near("location", center)) == ["near", "mid", "far"]  # nearest first, no order given
        assert sorted(names(lc.Query("_User").equal_to("tag", tag).within_miles("location", center, 5))) == ["mid", "near"]
        assert names(lc.Query("_User").equal_to("tag", tag).within_kilometers("location", center, 1.609344)) == ["near"]
        box = lc.Query("_User").equal_to("tag", tag).within_geo_box(
            "location", lc.GeoPoint(9.9, lng - 0.1), lc.GeoPoint(10.0 + 10 * MILE_DEGREES, lng + 0.1))
        assert sorted(names(box)) == ["mid", "near"]

        installs = {}
        for name, u in users.items():
            inst = lc.Installation()
            inst.set("deviceType", "ios")
            inst.set("deviceToken", secrets.token_hex(32))
            inst.set("owner", u)
            inst.set("userId", u.id)
            inst.set("tag", tag)
            inst.save()
            installs[inst.id] = name

        nearby = lc.Query("_User").within_miles("location", center, 5)

        def installed(query):
            return sorted(installs[i.id] for i in query.equal_to("tag", tag).find())

        assert installed(lc.Query(lc.Installation).matches_query("owner", nearby)) == ["mid", "near"]
        assert installed(lc.Query(lc.Installation).does_not_match_query("owner", nearby)) == ["far"]
        assert installed(lc.Query(lc.Installation).matches_key_in_query("userId", "objectId", nearby)) == ["mid", "near"]
    finally:
        sdk.as_app()
