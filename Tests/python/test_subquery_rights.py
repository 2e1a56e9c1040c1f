"""Sub-queries follow the caller's rights (issue 43 item 2): `_User` needs the master key whether a request
names it directly or reaches it through `$inQuery`, `$notInQuery`, `$select`, `$dontSelect` or the `$inQuery`
shorthand, at the top of a `where` or nested in a sub-query on an ordinary class: in listings, in `count`, in
`/push` with `client_push`, and in `/1.1/batch` listings. The app key gets 119 and nothing is evaluated; the
master key gets the answer, checked against what was stored here."""

import json
import secrets

import pytest
import requests


class App:
    def __init__(self, server):
        self.server = server
        self.app_id = "pyRights" + secrets.token_hex(4)
        self.key = "pyRightsKey" + secrets.token_hex(6)
        self.master = "pyRightsMaster" + secrets.token_hex(6)
        server.create_app("rights", self.app_id, self.key, self.master)
        # The app key may push: only the query's rights stand between it and _User.
        server.cli("app", "set", "--app", self.app_id, "client_push=true")

    def headers(self, master):
        key = self.master + ",master" if master else self.key
        return {"X-LC-Id": self.app_id, "X-LC-Key": key, "Content-Type": "application/json"}

    def call(self, method, path, master, body=None, **params):
        return requests.request(method, self.server.url(path), headers=self.headers(master), params=params,
                                data=None if body is None else json.dumps(body), timeout=10)

    def create(self, path, body):
        r = self.call("POST", path, True, body)
        assert r.status_code == 201, r.text
        return r.json()["objectId"]


def pointer(class_name, object_id):
    return {"__type": "Pointer", "className": class_name, "objectId": object_id}


@pytest.fixture(scope="module")
def world(server):
    app = App(server)
    secret = "s" + secrets.token_hex(4)
    alice = app.create("/users", {"username": "alice" + secrets.token_hex(3), "secret": secret, "city": "c1"})
    bob = app.create("/users", {"username": "bob" + secrets.token_hex(3), "secret": "other", "city": "c9"})
    team_class = "Team" + secrets.token_hex(3)
    post_class = "Post" + secrets.token_hex(3)
    red = app.create("/classes/" + team_class, {"boss": pointer("_User", alice), "city": "c1"})
    blue = app.create("/classes/" + team_class, {"boss": pointer("_User", bob), "city": "c2"})
    alice_name = app.call("GET", "/users/" + alice, True).json()["username"]
    # Two posts: the first by alice in the red team, the second by bob in the blue one.
    first = app.create("/classes/" + post_class, {"author": pointer("_User", alice), "team": pointer(team_class, red),
                                                  "authorName": alice_name})
    second = app.create("/classes/" + post_class, {"author": pointer("_User", bob), "team": pointer(team_class, blue),
                                                   "authorName": "nobody"})
    return dict(app=app, secret=secret, team=team_class, post=post_class, first=first, second=second)


def forms(w):
    """(name, where over posts, the posts the master key must get) for every way to reach _User."""
    users = {"className": "_User", "where": {"secret": w["secret"]}}
    through_team = lambda inner: {"team": {"$inQuery": {"className": w["team"], "where": {"boss": inner}}}}
    return [
        ("$inQuery", {"author": {"$inQuery": users}}, {w["first"]}),
        ("$notInQuery", {"author": {"$notInQuery": users}}, {w["second"]}),
        ("$select", {"authorName": {"$select": {"query": users, "key": "username"}}}, {w["first"]}),
        ("$dontSelect", {"authorName": {"$dontSelect": {"query": users, "key": "username"}}}, {w["second"]}),
        ("shorthand", {"author": {"$inQuery": {"secret": w["secret"]}}}, {w["first"]}),
        ("nested $inQuery", through_team({"$inQuery": users}), {w["first"]}),
        ("nested $notInQuery", through_team({"$notInQuery": users}), {w["second"]}),
        ("nested $select", {"team": {"$inQuery": {"className": w["team"], "where": {
            "city": {"$select": {"query": users, "key": "city"}}}}}}, {w["first"]}),
        ("inside $or", {"$or": [{"authorName": "none"}, {"author": {"$inQuery": users}}]}, {w["first"]}),
    ]


def ids(response):
    return {o["objectId"] for o in response.json()["results"]}


@pytest.mark.parametrize("index", range(9))
def test_listings_and_counts_refuse_the_app_key_and_answer_the_master_key(server, world, index):
    name, where, expected = forms(world)[index]
    app = world["app"]
    path = "/classes/" + world["post"]
    before = server.event_count(app.app_id)
    for params in ({"where": json.dumps(where)}, {"where": json.dumps(where), "count": "1", "limit": "0"}):
        r = app.call("GET", path, False, **params)
        assert (r.status_code, r.json()["code"]) == (403, 119), (name, r.text)
        assert "_User" in r.json()["error"] or "className" in r.json()["error"], r.text
    r = app.call("GET", path, True, where=json.dumps(where), count="1")
    assert r.status_code == 200, (name, r.text)
    assert ids(r) == expected and r.json()["count"] == len(expected), (name, r.text)
    assert server.event_count(app.app_id) == before


@pytest.mark.parametrize("index", range(9))
def test_batch_listings_follow_the_same_rights(server, world, index):
    name, where, expected = forms(world)[index]
    app = world["app"]
    slots = [{"method": "GET", "path": "/1.1/classes/%s" % world["post"], "body": {"where": where, "count": 1}},
             {"method": "GET", "path": "/1.1/classes/%s?where=%s" % (world["post"], requests.utils.quote(
                 json.dumps(where)))}]
    r = app.call("POST", "/batch", False, {"requests": slots})
    assert r.status_code == 200, r.text
    assert [slot["error"]["code"] for slot in r.json()] == [119, 119], (name, r.text)
    r = app.call("POST", "/batch", True, {"requests": slots})
    assert r.status_code == 200, r.text
    answers = [slot["success"] for slot in r.json()]
    assert [{o["objectId"] for o in a["results"]} for a in answers] == [expected, expected], (name, r.text)
    assert answers[0]["count"] == len(expected)


def test_client_push_cannot_target_through_user_sub_queries(server, world):
    app = world["app"]
    owner_users = {"className": "_User", "where": {"secret": world["secret"]}}
    for where in ({"owner": {"$inQuery": owner_users}},
                  {"owner": {"$inQuery": {"secret": world["secret"]}}},
                  {"team": {"$inQuery": {"className": world["team"], "where": {"boss": {"$inQuery": owner_users}}}}},
                  {"appName": {"$select": {"query": owner_users, "key": "username"}}}):
        before = server.event_count(app.app_id)
        r = app.call("POST", "/push", False, {"where": where, "data": {"alert": "x"}})
        assert (r.status_code, r.json()["code"]) == (403, 119), r.text
        assert server.event_count(app.app_id) == before
        r = app.call("POST", "/push", True, {"where": where, "data": {"alert": "x"}})
        assert r.status_code == 200, r.text


def test_direct_user_access_stays_master_only(world):
    app = world["app"]
    assert app.call("GET", "/users", False).json()["code"] == 119
    assert app.call("GET", "/classes/_User", False).json()["code"] == 119
    r = app.call("POST", "/batch", False, {"requests": [{"method": "GET", "path": "/1.1/users"}]})
    assert r.json()[0]["error"]["code"] == 119, r.text


def test_in_query_on_a_field_that_is_not_a_pointer_is_always_102(server, world):
    app = world["app"]
    # authorName was inferred a String when the posts were stored; deviceToken is a String by SPEC §3.
    for operand in ({}, {"a": 1}, {"className": world["team"], "where": {}}, {"className": "Nope"}):
        for op in ("$inQuery", "$notInQuery"):
            r = app.call("GET", "/classes/" + world["post"], True, where=json.dumps({"authorName": {op: operand}}))
            assert (r.status_code, r.json()["code"]) == (400, 102), r.text
            r = app.call("GET", "/installations", True, where=json.dumps({"deviceToken": {op: operand}}))
            assert (r.status_code, r.json()["code"]) == (400, 102), r.text
