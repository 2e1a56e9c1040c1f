"""Users and sessions (SPEC §12.5, issue 45 item 2) with the official LeanCloud Python SDK, unchanged:
sign-up, login, `become`, an installation owned by the signed-in user, a master-key push with `$inQuery` on
`_User` that the simulator shows reached exactly that device; LeanCloud's error codes; session refresh and
revocation; login throttling; and the password found nowhere: not in the events table, the server's log or
any response.
"""

import json
import re
import secrets

import pytest
import requests

from test_sdk_push import wait_done



def name(prefix="u"):
    return prefix + secrets.token_hex(5)


def new_password():
    # Distinctive enough that a grep for it can only find this password.
    return "pw-" + secrets.token_hex(12)


def sign_out(lc):
    current = lc.User.get_current()
    if current:
        current.logout()


@pytest.fixture
def lc(sdk, push_app):
    """The SDK with the push app's app key, and no one signed in before or after."""
    lc = sdk.as_app(push_app.app_id, push_app.app_key)
    sign_out(lc)
    yield lc
    sign_out(lc)


@pytest.fixture
def wire(lc):
    """Every response the SDK got (its public request_hooks), to grep them for the password."""
    seen = []
    lc.client.request_hooks["response"] = lambda r, *a, **k: seen.append(r)
    yield seen
    lc.client.request_hooks.clear()


def call(server, app, method, path, body=None, session=None, master=False, **params):
    headers = {"X-LC-Id": app.app_id, "Content-Type": "application/json",
               "X-LC-Key": app.master_key + ",master" if master else app.app_key}
    if session:
        headers["X-LC-Session"] = session
    return requests.request(method, server.url(path), headers=headers, params=params or None,
                            data=None if body is None else json.dumps(body), timeout=20)


def sign_up(server, app, username=None, password=None, **fields):
    r = call(server, app, "POST", "/users", dict(username=username or name(), password=password or new_password(),
                                                  **fields))
    assert r.status_code == 201, r.text
    return r.json()


def refused(response, status, code):
    assert response.status_code == status and response.json()["code"] == code, response.text
    assert set(response.json()) == {"code", "error"}, response.text
    return response.json()


def pointer(user_id):
    return {"__type": "Pointer", "className": "_User", "objectId": user_id}


def own_device(lc, user, device_token):
    """An iOS installation saved by the SDK while `user` is signed in, with `owner` pointing at them."""
    inst = lc.Installation()
    inst.set("deviceType", "ios")
    inst.set("deviceToken", device_token)
    inst.set("owner", user)
    inst.save()
    return inst


def test_sdk_sign_up_login_become_owned_installation_and_push_to_that_user(
        server, push_app, simulator, sdk, lc, wire, token):
    username, password = name("sdk"), new_password()
    user = lc.User()
    user.sign_up(username, password)  # POST /1.1/classes/_User?fetchWhenSave=false, as the SDK sends it
    assert re.fullmatch(r"[0-9A-Za-z]{10,32}", user.id)
    first_token = user.get_session_token()
    assert re.fullmatch(r"[a-z0-9]{32}", first_token)
    assert lc.User.get_current().id == user.id
    assert "password" not in user._attributes  # the SDK drops it after saving; the server never echoed it

    # The signed-in user's own installation: the SDK sends X-LC-Session, so owner may point at them.
    mine = own_device(lc, user, token())
    user.logout()

    # Another user with another device, so the push below has someone not to reach.
    other = lc.User()
    other.sign_up(name("other"), new_password())
    theirs = own_device(lc, other, token())
    other.logout()

    # A wrong password is LeanCloud's 210, an unknown username 211.
    with pytest.raises(lc.LeanCloudError) as e:
        lc.User().login(username, "not-" + password)
    assert e.value.code == 210
    with pytest.raises(lc.LeanCloudError) as e:
        lc.User().login(name("nobody"), password)
    assert e.value.code == 211

    again = lc.User()
    again.login(username, password)  # POST /1.1/login
    assert again.id == user.id and again.get("username") == username
    second_token = again.get_session_token()
    assert second_token and second_token != first_token
    again.logout()

    became = lc.User.become(first_token)  # GET /1.1/users/me?session_token=…
    assert became.id == user.id and became.get_session_token() == first_token
    assert lc.User.get_current().id == user.id
    became.logout()
    with pytest.raises(lc.LeanCloudError) as e:
        lc.User.become("x" * 32)
    assert e.value.code == 211

    stored = call(server, push_app, "GET", "/installations/" + mine.id).json()
    assert stored["owner"] == pointer(user.id)

    sdk.as_master(push_app.app_id, push_app.master_key)
    where = lc.Query("_Installation").matches_query("owner", lc.Query("_User").equal_to("username", username))
    notification = wait_done(lc.push.send({"alert": "for " + username}, where=where))
    assert notification.get("devices") == 1 and notification.get("successes") == 1
    got = simulator.requests_for(mine.get("deviceToken").lower())
    assert got["accepted"] == 1 and got["recorded"][0]["payload"]["aps"]["alert"] == "for " + username
    assert simulator.requests_for(theirs.get("deviceToken").lower())["requests"] == 0

    # The password is nowhere: not in the log of events, not in the server's log, not in any answer.
    assert password not in server.sql("SELECT coalesce(string_agg(data::text || metadata::text, ''), '') FROM events")
    assert password not in server.log_path.read_text()
    assert wire and all(password not in r.text for r in wire)
    assert [r.request.url.split("?")[0].split("/1.1")[1] for r in wire[:1]] == ["/classes/_User"]
    hashes = server.sql("SELECT password_hash FROM user_credentials WHERE user_id = '%s'" % user.id)
    assert hashes.startswith("scrypt$32768$8$1$") and password not in hashes
    sessions = server.sql("SELECT string_agg(token_hash, ' ') FROM user_sessions WHERE user_id = '%s'" % user.id)
    assert first_token not in sessions and second_token not in sessions and len(sessions.split()) == 2
    kinds = server.sql("SELECT string_agg(DISTINCT type, ',') FROM events WHERE stream = 'object:_User:%s'" % user.id)
    assert kinds == "UserSignedUp"


def test_sign_up_answers_and_leancloud_codes(server, push_app):
    username = name()
    r = call(server, push_app, "POST", "/users", {"username": username, "password": new_password(), "city": "Dali"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert set(body) == {"objectId", "createdAt", "sessionToken"}
    assert r.headers["Location"] == "/1.1/users/" + body["objectId"]
    refused(call(server, push_app, "POST", "/classes/_User", {"username": username, "password": "x"}), 400, 202)
    refused(call(server, push_app, "POST", "/users", {"username": name()}), 400, 201)
    refused(call(server, push_app, "POST", "/users", {"username": name(), "password": ""}), 400, 201)
    refused(call(server, push_app, "POST", "/users", {"password": "x"}), 400, 200)
    refused(call(server, push_app, "POST", "/users", {"username": name(), "password": "x", "sessionToken": "a"}),
            400, 1)
    refused(call(server, push_app, "POST", "/login", {"username": username}), 400, 201)
    refused(call(server, push_app, "GET", "/login", password="x"), 400, 200)
    # The master key may still create a user without a password (who cannot log in), but not a second name.
    made = call(server, push_app, "POST", "/users", {"username": name("m")}, master=True)
    assert made.status_code == 201 and "sessionToken" not in made.json(), made.text
    refused(call(server, push_app, "POST", "/users", {"username": username}, master=True), 400, 202)
    # Renaming onto a taken name is 202 as well; nothing was appended by any refusal.
    before = server.event_count(push_app.app_id)
    refused(call(server, push_app, "PUT", "/users/" + made.json()["objectId"], {"username": username}, master=True),
            400, 202)
    assert server.event_count(push_app.app_id) == before


def test_get_login_users_me_and_own_row(server, push_app):
    username, password = name(), new_password()
    alice = sign_up(server, push_app, username, password)
    bob = sign_up(server, push_app)
    r = call(server, push_app, "GET", "/login", username=username, password=password)
    assert r.status_code == 200, r.text
    logged = r.json()
    assert logged["objectId"] == alice["objectId"] and logged["username"] == username
    assert {"createdAt", "updatedAt", "sessionToken"} <= set(logged) and "password" not in logged
    me = call(server, push_app, "GET", "/users/me", session=logged["sessionToken"])
    assert me.status_code == 200 and me.json()["objectId"] == alice["objectId"], me.text
    refused(call(server, push_app, "GET", "/users/me"), 400, 211)
    # Her own row with her session; not Bob's, and not without a session.
    assert call(server, push_app, "GET", "/users/" + alice["objectId"], session=alice["sessionToken"]).status_code == 200
    refused(call(server, push_app, "GET", "/users/" + bob["objectId"], session=alice["sessionToken"]), 403, 119)
    refused(call(server, push_app, "GET", "/users/" + alice["objectId"]), 403, 119)
    # Listing and app-key sub-queries over _User stay master-only, session or not.
    refused(call(server, push_app, "GET", "/users", session=alice["sessionToken"]), 403, 119)
    where = json.dumps({"owner": {"$inQuery": {"className": "_User", "where": {"username": username}}}})
    refused(call(server, push_app, "GET", "/classes/Anything", session=alice["sessionToken"], where=where), 403, 119)


def test_updates_refresh_and_password_change_revoke_sessions(server, push_app):
    username, password = name(), new_password()
    alice = sign_up(server, push_app, username, password)
    bob = sign_up(server, push_app)
    uid, first = alice["objectId"], alice["sessionToken"]
    refused(call(server, push_app, "PUT", "/users/" + uid, {"city": "x"}, session=bob["sessionToken"]), 403, 206)
    refused(call(server, push_app, "PUT", "/users/" + uid, {"city": "x"}), 403, 206)
    refused(call(server, push_app, "DELETE", "/users/" + uid, session=bob["sessionToken"]), 403, 206)
    r = call(server, push_app, "PUT", "/users/" + uid, {"city": "Kunming"}, session=first)
    assert r.status_code == 200 and set(r.json()) == {"updatedAt"}, r.text
    assert call(server, push_app, "GET", "/users/" + uid, master=True).json()["city"] == "Kunming"

    # refreshSessionToken (PUT, as the SDKs send it): the old token stops working at once.
    r = call(server, push_app, "PUT", "/users/%s/refreshSessionToken" % uid, session=first)
    assert r.status_code == 200, r.text
    second = r.json()["sessionToken"]
    assert second != first and r.json()["objectId"] == uid
    refused(call(server, push_app, "GET", "/users/me", session=first), 400, 211)
    assert call(server, push_app, "GET", "/users/me", session=second).status_code == 200
    r = call(server, push_app, "POST", "/users/%s/refreshSessionToken" % uid, master=True)
    assert r.status_code == 200, r.text
    third = r.json()["sessionToken"]
    refused(call(server, push_app, "GET", "/users/me", session=second), 400, 211)

    # A new password: a new token in the answer, every earlier session ends, only the new password logs in.
    changed = new_password()
    r = call(server, push_app, "PUT", "/users/" + uid, {"password": changed}, session=third)
    assert r.status_code == 200 and set(r.json()) == {"updatedAt", "sessionToken"}, r.text
    refused(call(server, push_app, "GET", "/users/me", session=third), 400, 211)
    assert call(server, push_app, "GET", "/users/me", session=r.json()["sessionToken"]).status_code == 200
    refused(call(server, push_app, "POST", "/login", {"username": username, "password": password}), 400, 210)
    assert call(server, push_app, "POST", "/login", {"username": username, "password": changed}).status_code == 200
    kinds = server.sql("SELECT string_agg(type, ',' ORDER BY version) FROM events WHERE stream = 'object:_User:%s'"
                       % uid)
    assert kinds == "UserSignedUp,UserUpdated,UserUpdated"
    assert changed not in server.sql("SELECT coalesce(string_agg(data::text, ''), '') FROM events")

    # A user deleted by their own session keeps no credentials and no sessions.
    token = call(server, push_app, "POST", "/login", {"username": username, "password": changed}).json()["sessionToken"]
    assert call(server, push_app, "DELETE", "/users/" + uid, session=token).status_code == 200
    refused(call(server, push_app, "POST", "/login", {"username": username, "password": changed}), 400, 211)
    assert server.sql("SELECT count(*) FROM user_sessions WHERE user_id = '%s'" % uid) == "0"
    assert server.sql("SELECT count(*) FROM user_credentials WHERE user_id = '%s'" % uid) == "0"


def test_owner_points_only_at_the_signed_in_user(server, push_app, token):
    alice, bob = sign_up(server, push_app), sign_up(server, push_app)
    device = {"deviceType": "ios", "deviceToken": token(), "owner": pointer(alice["objectId"])}
    before = server.event_count(push_app.app_id)
    refused(call(server, push_app, "POST", "/installations", device), 403, 119)
    refused(call(server, push_app, "POST", "/installations", device, session=bob["sessionToken"]), 403, 119)
    refused(call(server, push_app, "POST", "/installations", dict(device, owner={"__op": "Add", "objects": [
        pointer(alice["objectId"])]}), session="not-a-session"), 403, 119)
    assert server.event_count(push_app.app_id) == before
    r = call(server, push_app, "POST", "/installations", device, session=alice["sessionToken"])
    assert r.status_code == 201, r.text
    oid = r.json()["objectId"]

    # Owned now: only Alice (or the master key) changes it; the SDK's unchanged re-save still goes through.
    refused(call(server, push_app, "PUT", "/installations/" + oid, {"owner": pointer(bob["objectId"])},
                 session=bob["sessionToken"]), 403, 119)
    refused(call(server, push_app, "PUT", "/installations/" + oid, {"deviceToken": token()}), 403, 119)
    refused(call(server, push_app, "PUT", "/installations/" + oid, {"owner": {"__op": "Delete"}}), 403, 119)
    assert call(server, push_app, "POST", "/installations", device).status_code == 200
    assert call(server, push_app, "PUT", "/installations/" + oid, {"badge": 3},
                session=alice["sessionToken"]).status_code == 200
    assert call(server, push_app, "PUT", "/installations/" + oid, {"owner": pointer(bob["objectId"])},
                master=True).status_code == 200
    assert call(server, push_app, "GET", "/installations/" + oid).json()["owner"] == pointer(bob["objectId"])


def test_failed_logins_are_throttled_per_username(server, push_app):
    username, password = name(), new_password()
    sign_up(server, push_app, username, password)
    for _ in range(5):
        refused(call(server, push_app, "POST", "/login", {"username": username, "password": "wrong"}), 400, 210)
    locked = call(server, push_app, "POST", "/login", {"username": username, "password": password})
    err = refused(locked, 429, 219)
    assert 1 <= int(locked.headers["Retry-After"]) <= 60 and "try again" in err["error"]
    # Another username from the same address is not locked by this one's failures.
    other, other_password = name(), new_password()
    sign_up(server, push_app, other, other_password)
    assert call(server, push_app, "POST", "/login", {"username": other, "password": other_password}).status_code == 200
