"""App isolation (SPEC §1): a second app's keys can neither read, list, change nor delete the first app's
installation, and the first app's data and event stream stay exactly as they were."""

import json
import secrets

import pytest
import requests


@pytest.fixture(scope="module")
def second_app(server):
    """A second app created with the CLI while the server runs."""
    app_id = "pyAppTwo" + secrets.token_hex(4)
    key, master = "pyKeyTwo" + secrets.token_hex(8), "pyMasterTwo" + secrets.token_hex(8)
    assert server.create_app("python-sdk-2", app_id, key, master) == {
        "appId": app_id, "appKey": key, "masterKey": master}
    return app_id, key, master


def test_second_app_cannot_touch_first_apps_installation(server, sdk, second_app, token, channel):
    app2, key2, master2 = second_app
    tok, ch = token(), channel("iso")
    victim = sdk.lc.Installation()
    victim.set({"deviceType": "ios", "deviceToken": tok, "channels": [ch], "badge": 7})
    victim.save()
    original = requests.get(server.url("/installations/" + victim.id), headers=server.app_headers()).json()
    app1_events = server.event_count(server.app_id)

    h2 = {"X-LC-Id": app2, "X-LC-Key": key2, "Content-Type": "application/json"}
    m2 = {"X-LC-Id": app2, "X-LC-Key": master2 + ",master", "Content-Type": "application/json"}

    # Positive control: app 2's keys work for app 2 (through the SDK too), so refusals below are isolation.
    sdk.as_app(app2, key2)
    own = sdk.lc.Installation()
    own.set({"deviceType": "ios", "deviceToken": tok, "channels": [ch]})  # same token, other tenant
    own.save()
    assert own.id and own.id != victim.id, "an upsert crossed apps"
    sdk.as_master(app2, master2)
    q = sdk.lc.Query("_Installation")
    q.equal_to("channels", ch)
    assert [o.id for o in q.find()] == [own.id]
    assert q.count() == 1
    q = sdk.lc.Query("_Installation")
    q.equal_to("objectId", victim.id)
    assert q.find() == [] and q.count() == 0

    # Reading, updating and deleting app 1's object by id with app 2's keys: not found.
    for headers in (h2, m2):
        for path in ("/installations/", "/classes/_Installation/"):
            r = requests.get(server.url(path + victim.id), headers=headers)
            assert r.status_code == 404 and r.json()["code"] == 101, r.text
            r = requests.put(server.url(path + victim.id), headers=headers,
                             json={"badge": 0, "channels": {"__op": "Add", "objects": ["stolen"]}})
            assert r.status_code == 404 and r.json()["code"] == 101, r.text
    for path in ("/installations/", "/classes/_Installation/"):
        r = requests.delete(server.url(path + victim.id), headers=m2)
        assert r.status_code in (404, 401, 403), (r.status_code, r.text)
    with pytest.raises(sdk.lc.LeanCloudError) as err:
        sdk.fetch(victim.id)
    assert err.value.code == 101
    # Listing with app 2's master key never shows app 1's objects.
    r = requests.get(server.url("/installations"), headers=m2,
                     params={"where": json.dumps({"deviceToken": tok.lower()}), "count": 1, "limit": 1000})
    assert r.status_code == 200, r.text
    assert [o["objectId"] for o in r.json()["results"]] == [own.id] and r.json()["count"] == 1

    # Mixing one app's id with the other app's keys is unauthorized.
    for headers in ({"X-LC-Id": server.app_id, "X-LC-Key": key2},
                    {"X-LC-Id": server.app_id, "X-LC-Key": master2 + ",master"},
                    server.signed(server.app_id, master2, master=True),
                    {"X-LC-Id": app2, "X-LC-Key": server.master_key + ",master"}):
        r = requests.get(server.url("/installations/" + victim.id), headers=headers)
        assert r.status_code == 401 and r.json() == {"code": 401, "error": "Unauthorized."}, r.text
        r = requests.delete(server.url("/installations/" + victim.id), headers=headers)
        assert r.status_code == 401, r.text

    # App 1's object and event stream are untouched.
    assert requests.get(server.url("/installations/" + victim.id), headers=server.app_headers()).json() == original
    assert server.event_count(server.app_id) == app1_events
    sdk.as_master()
    q = sdk.lc.Query("_Installation")
    q.equal_to("channels", ch)
    assert [o.id for o in q.find()] == [victim.id]
