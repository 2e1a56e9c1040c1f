"""Requests sharing a `notification_id` are one push record (SPEC §12.6, seed 001; issue 45 item 3): listed
once with summed counts and every request's objectId, the same record from either request, `done` only when
every request is; DELETE of one request cancels that request only, and each keeps its own stream. Expected
counts come from the devices saved here and the simulator's own request counts.
"""

import datetime
import secrets
import time

import requests

DONE_TIMEOUT = 20


def ios_token():
    return secrets.token_hex(32)


def call(server, app, method, path, body=None):
    r = requests.request(method, server.url(path), headers=app.master_headers(), json=body, timeout=20)
    return r


def devices(server, app, channel, n):
    tokens = [ios_token() for _ in range(n)]
    for tok in tokens:
        r = call(server, app, "POST", "/installations", {"deviceType": "ios", "deviceToken": tok, "channels": [channel]})
        assert r.status_code == 201, r.text
    return tokens


def push(server, app, **body):
    r = call(server, app, "POST", "/push", body)
    assert r.status_code == 200, r.text
    return r.json()["objectId"]


def record(server, app, object_id):
    r = call(server, app, "GET", "/notifications/" + object_id)
    assert r.status_code == 200, r.text
    return r.json()


def wait_status(server, app, object_id, status):
    deadline = time.monotonic() + DONE_TIMEOUT
    while True:
        got = record(server, app, object_id)
        if got["status"] == status:
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.2)


def listed(server, app, nid):
    r = call(server, app, "GET", "/notifications?limit=1000")
    assert r.status_code == 200, r.text
    return [x for x in r.json()["results"] if x.get("notificationId") == nid]


def test_two_requests_under_one_notification_id_are_one_record(server, push_app, simulator):
    nid = "campaign" + secrets.token_hex(4)
    first_channel, second_channel = "m1_" + secrets.token_hex(3), "m2_" + secrets.token_hex(3)
    first_tokens = devices(server, push_app, first_channel, 2)
    second_tokens = devices(server, push_app, second_channel, 3)
    first = push(server, push_app, channels=[first_channel], data={"alert": "part one"}, notification_id=nid)
    wait_status(server, push_app, first, "done")
    # While the second request waits for its time, the record is not done, though the first request is.
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")
    second = push(server, push_app, channels=[second_channel], data={"alert": "part two"}, notification_id=nid,
                  push_time=later)
    waiting = record(server, push_app, first)
    assert waiting["status"] in ("scheduled", "in-queue") and waiting["objectIds"] == [first, second], waiting

    merged = wait_status(server, push_app, second, "done")
    sent = sum(simulator.requests_for(t)["accepted"] for t in first_tokens + second_tokens)
    assert sent == 5
    assert (merged["devices"], merged["successes"], merged["iosSuccesses"], merged["errors"]) == (5, 5, 5, 0), merged
    assert merged["objectId"] == first and merged["objectIds"] == [first, second]
    assert merged["notificationId"] == nid and merged["data"] == {"alert": "part one"}
    assert record(server, push_app, first) == merged
    once = listed(server, push_app, nid)
    assert once == [merged], once

    # Each request keeps its own stream and its own audit entry.
    for oid in (first, second):
        kinds = server.sql("SELECT string_agg(DISTINCT type, ',') FROM events WHERE stream = 'push:%s'" % oid)
        assert "PushRequested" in kinds and "PushCompleted" in kinds, kinds

    # DELETE of one request removes that request only; the record is the other's alone, then gone.
    assert call(server, push_app, "DELETE", "/notifications/" + first).status_code == 200
    rest = record(server, push_app, second)
    assert (rest["objectId"], rest["objectIds"], rest["devices"], rest["successes"]) == (second, [second], 3, 3), rest
    assert call(server, push_app, "GET", "/notifications/" + first).status_code == 404
    assert call(server, push_app, "DELETE", "/notifications/" + second).status_code == 200
    assert listed(server, push_app, nid) == []


def test_cancelling_one_request_leaves_the_record_not_done(server, push_app):
    nid = "mixed" + secrets.token_hex(4)
    channel = "mx_" + secrets.token_hex(3)
    devices(server, push_app, channel, 1)
    sent = push(server, push_app, channels=[channel], data={"alert": "now"}, notification_id=nid)
    wait_status(server, push_app, sent, "done")
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=5)).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")
    waiting = push(server, push_app, channels=[channel], data={"alert": "later"}, notification_id=nid, push_time=later)
    entry = [s for s in call(server, push_app, "GET", "/scheduledPushMessages").json()["results"]
             if s["push_msg"].get("notification_id") == nid]
    assert len(entry) == 1
    assert call(server, push_app, "DELETE", "/scheduledPushMessages/%d" % entry[0]["id"]).status_code == 200
    merged = record(server, push_app, waiting)
    assert merged["status"] == "cancelled" and merged["objectIds"] == [sent, waiting], merged
    assert (merged["devices"], merged["successes"]) == (1, 1)
    # A request without a notification_id stays its own record, with no objectIds.
    alone = push(server, push_app, channels=[channel], data={"alert": "alone"})
    assert "objectIds" not in wait_status(server, push_app, alone, "done")
