"""`$nor` and field-level `$not` (SPEC §12.1) through the REST API: the installation listing with the master
key, and a push whose audience they select, checked device by device on the simulator.

A clause on a field an installation lacks does not match it, so `$nor` keeps that installation, and `$not`
keeps installations without the field; both travel inside the one compiled SQL statement of the listing and
of push targeting.
"""

import json
import secrets
import time

import requests


def create(server, app, body):
    r = requests.post(server.url("/installations"), headers=app.master_headers(), data=json.dumps(body), timeout=10)
    assert r.status_code in (200, 201), r.text
    return r.json()["objectId"]


def listed(server, app, where):
    r = requests.get(server.url("/installations"), headers=app.master_headers(), timeout=10,
                     params={"where": json.dumps(where), "limit": 1000})
    assert r.status_code == 200, r.text
    return {row["objectId"] for row in r.json()["results"]}


def audience(server, app, channel):
    """Installations in a fresh channel: name → (objectId, token). The fields differ the way the tests need."""
    fields = {
        "gold": {"tier": "gold", "name": "ann"},
        "silver": {"tier": "silver", "name": "bob"},
        "untiered": {"name": "cat"},  # no tier at all
        "beta": {"tier": "silver", "beta": True, "name": "abe"},
        "nameless": {"tier": ["bronze", "silver"]},  # an array field, and no name
    }
    out = {}
    for name, extra in fields.items():
        token = secrets.token_hex(32)
        body = {"deviceType": "ios", "deviceToken": token, "channels": [channel], **extra}
        out[name] = (create(server, app, body), token)
    return out


def ids(people, *names):
    return {people[n][0] for n in names}


def test_listing_with_nor_and_not(server, push_app):
    channel = "neg_" + secrets.token_hex(4)
    people = audience(server, push_app, channel)

    def where(extra):
        return listed(server, push_app, {"channels": channel, **extra})

    # A clause on the missing field `tier` does not match `untiered`, so $nor keeps it.
    assert where({"$nor": [{"tier": "gold"}, {"beta": True}]}) == ids(people, "silver", "untiered", "nameless")
    # Array fields: a clause matches when any element does.
    assert where({"$nor": [{"tier": "silver"}]}) == ids(people, "gold", "untiered")
    assert where({"$nor": [{"$or": [{"tier": "gold"}, {"name": {"$regex": "^c"}}]}]}) == ids(
        people, "silver", "beta", "nameless")
    # $not negates the operator expression; a missing field is included.
    assert where({"name": {"$not": {"$regex": "^a"}}}) == ids(people, "silver", "untiered", "nameless")
    assert where({"tier": {"$not": {"$in": ["gold", "bronze"]}}}) == ids(people, "silver", "untiered", "beta")
    assert where({"beta": {"$not": {"$exists": True}}}) == ids(people, "gold", "silver", "untiered", "nameless")
    assert where({"name": {"$not": {"$gt": "b"}}}) == ids(people, "gold", "beta", "nameless")


def test_bad_nor_and_not_operands_are_code_102(server, push_app):
    for where in ({"$nor": []}, {"$nor": {"a": 1}}, {"a": {"$not": "^a"}}, {"a": {"$not": {"b": 1}}}):
        r = requests.get(server.url("/installations"), headers=push_app.master_headers(), timeout=10,
                         params={"where": json.dumps(where)})
        assert r.status_code == 400 and r.json()["code"] == 102, (where, r.text)
        r = requests.post(server.url("/push"), headers=push_app.master_headers(), timeout=10,
                          data=json.dumps({"where": where, "data": {"alert": "x"}}))
        assert r.status_code == 400 and r.json()["code"] == 102, (where, r.text)


def test_push_with_nor_and_not_reaches_exactly_the_matching_devices(server, push_app, simulator):
    channel = "negpush_" + secrets.token_hex(4)
    people = audience(server, push_app, channel)
    where = {"channels": channel, "$nor": [{"tier": "gold"}, {"beta": True}], "name": {"$not": {"$regex": "^b"}}}
    r = requests.post(server.url("/push"), headers=push_app.master_headers(), timeout=10,
                      data=json.dumps({"where": where, "data": {"alert": "not for gold"}}))
    assert r.status_code == 200, r.text
    push_id = r.json()["objectId"]

    deadline = time.monotonic() + 30
    while True:
        record = requests.get(server.url("/notifications/" + push_id), headers=push_app.master_headers(),
                              timeout=10).json()
        if record["status"] == "done":
            break
        assert time.monotonic() < deadline, record
        time.sleep(0.2)

    expected = {"untiered", "nameless"}  # silver is named bob; gold and beta are excluded by $nor
    assert (record["devices"], record["successes"]) == (len(expected), len(expected)), record
    for name, (_, token) in people.items():
        got = simulator.requests_for(token)
        assert got["accepted"] == (1 if name in expected else 0), (name, got)
