"""LeanCloud's payload keys in `data` (its REST guide; issue 45 item 5), checked on what the simulated APNs and
FCM received: iOS `title`/`subtitle` in `aps.alert`, `collapse-id`, `apns-priority` and `apns-push-type` as
headers, Android `_notificationChannel` as the notification channel. None of them travels as a custom key."""

import secrets

import requests

from test_device_channel import push, wait_record


def save(server, app, body):
    r = requests.post(server.url("/installations"), json=body, headers=app.master_headers())
    assert r.status_code == 201, r.text


def test_ios_keys_become_the_alert_and_headers(server, simulator, push_app):
    channel = "keys-" + secrets.token_hex(4)
    token = secrets.token_hex(32)
    save(server, push_app, {"deviceType": "ios", "deviceToken": token, "channels": [channel]})
    push_id = push(server, push_app, {"channels": [channel], "data": {
        "alert": "Body", "title": "Title", "subtitle": "Sub", "collapse-id": "score-update", "apns-priority": 5,
        "custom": "kept"}})
    rec = wait_record(server, push_app, push_id, lambda r: r["status"] == "done")
    assert (rec["successes"], rec["errors"]) == (1, 0), rec
    [sent] = simulator.requests_for(token)["recorded"]
    assert sent["payload"] == {"aps": {"alert": {"title": "Title", "subtitle": "Sub", "body": "Body"}},
                               "custom": "kept", "_nid": push_id}, sent
    headers = sent["headers"]
    assert (headers["apns-collapse-id"], headers["apns-priority"], headers["apns-push-type"]) == (
        "score-update", "5", "alert"), headers


def test_without_a_collapse_id_the_push_collapses_by_its_own_id(server, simulator, push_app):
    channel = "keys-" + secrets.token_hex(4)
    token = secrets.token_hex(32)
    save(server, push_app, {"deviceType": "ios", "deviceToken": token, "channels": [channel]})
    push_id = push(server, push_app, {"channels": [channel], "data": {"alert": "Body"}})
    wait_record(server, push_app, push_id, lambda r: r["status"] == "done")
    [sent] = simulator.requests_for(token)["recorded"]
    assert (sent["headers"]["apns-collapse-id"], sent["headers"]["apns-priority"]) == (push_id, "10"), sent


def test_bad_header_keys_are_refused_at_the_request(server, push_app):
    for data in [{"alert": "x", "apns-push-type": "telegram"}, {"alert": "x", "apns-priority": 7},
                 {"alert": "x", "collapse-id": "a\r\nX-Injected: 1"}]:
        r = requests.post(server.url("/push"), json={"where": {}, "data": data}, headers=push_app.master_headers())
        assert r.status_code == 400 and r.json()["code"] == 1, (data, r.text)


def test_android_notification_channel_selects_the_fcm_channel(server, simulator, push_app):
    channel = "keys-" + secrets.token_hex(4)
    token = "fcm-" + secrets.token_hex(12)
    save(server, push_app, {"deviceType": "android", "registrationId": token,
                            "installationId": "i-" + secrets.token_hex(6), "channels": [channel]})
    push_id = push(server, push_app, {"channels": [channel], "data": {
        "alert": "Body", "title": "T", "_notificationChannel": "news"}})
    wait_record(server, push_app, push_id, lambda r: r["status"] == "done")
    [sent] = simulator.requests_for(token)["recorded"]
    message = sent["payload"]["message"]
    assert message["android"]["notification"] == {"channel_id": "news"}, message
    assert message["notification"] == {"title": "T", "body": "Body"}, message
