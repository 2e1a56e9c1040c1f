"""Android vendor push end to end (issue 44, SPEC §12.3): a real server, the simulator's vendor look-alikes, and
the requests they recorded checked against docs/vendors.md's wire contract, written out by hand here.

Each vendor's token (`registrationId`) chooses its simulated answer by prefix (docs/simulator.md): `invalid-` the
vendor's invalid-token signal, `unavailable-` its retry answer twice, `quota-` its daily-quota answer, `error-` a
permanent error.
"""

import json
import re
import secrets
import time
import urllib.parse

import pytest
import requests

from conftest import APNS_TOPIC, PushApp
from test_device_channel import Device, ack, next_message, push, record, wait_record

# SPEC §12.3's `vendor` values with the record counter each success is counted under.
VENDORS = {"HMS": "hms", "mi": "mi", "oppo": "oppo", "vivo": "vivo", "mz": "mz", "honor": "honor"}
COUNTERS = ["hmsSuccesses", "miSuccesses", "oppoSuccesses", "vivoSuccesses", "mzSuccesses", "honorSuccesses",
            "fcmSuccesses", "lcSuccesses"]
# The look-alikes' fixed credentials, as docs/simulator.md lists them.
HMS_APP, HONOR_APP, MI_SECRET, MI_PACKAGE, VIVO_APP = "sim-hms-app", "sim-honor-app", "sim-mi-secret", \
    "com.example.sim", 10001


def sim_control(simulator, method, path, body=None):
    r = requests.request(method, simulator.control + path, json=body, verify=simulator.ca_file, timeout=10)
    r.raise_for_status()
    return r.json()


def vendor_stats(simulator):
    stats = sim_control(simulator, "GET", "/stats?tokens=0")
    return {v: stats[v] for v in ["hms", "honor", "mi", "oppo", "vivo", "mz"]} | {
        v + "Auth": stats[v + "Auth"] for v in ["hms", "honor", "oppo", "vivo"]}


def recorded(simulator, token):
    answer = simulator.requests_for(token)
    assert answer["recorded"], "the simulator recorded nothing for %s: %r" % (token, answer)
    return answer


def new_app(server, simulator, **extra):
    """An app configured for every provider of the simulator, plus `extra` settings."""
    app = PushApp("pyVendor" + secrets.token_hex(4), "pyVendorKey" + secrets.token_hex(8),
                  "pyVendorMaster" + secrets.token_hex(8))
    server.create_app("vendor-push", app.app_id, app.app_key, app.master_key)
    settings = dict(simulator.app_settings)
    settings.update({
        "apns.key_file": simulator.apns_key_file, "apns.key_id": simulator.key_id,
        "apns.team_id": simulator.team_id, "apns.topic": APNS_TOPIC,
        "fcm.service_account_file": simulator.service_account_file, "fcm.project_id": "demo",
    })
    settings.update(extra)
    server.cli("app", "set", "--app", app.app_id, *("%s=%s" % kv for kv in sorted(settings.items())))
    return app


def save(server, app, body):
    r = requests.post(server.url("/installations"), json=body, headers=app.master_headers())
    assert r.status_code == 201, r.text
    return r.json()["objectId"]


def installation(server, app, object_id):
    r = requests.get(server.url("/installations/" + object_id), headers=app.master_headers())
    assert r.status_code == 200, r.text
    return r.json()


def android(server, app, vendor, token, channel, **fields):
    body = {"deviceType": "android", "registrationId": token, "installationId": "i-" + secrets.token_hex(8),
            "channels": [channel], **fields}
    if vendor:
        body["vendor"] = vendor
    return save(server, app, body)


def done(rec):
    return rec["status"] == "done" and rec.get("channelPending", 0) == 0


def percent_decoded_content(intent):
    """The `S.content=` extra of an HMS/Honor click intent, decoded: the LeanCloud JSON the module reads."""
    prefix = "intent://cn.leancloud.push/notify_detail#Intent;scheme=lcpushscheme;launchFlags=0x10000000;S.content="
    assert intent.startswith(prefix) and intent.endswith(";end"), intent
    return json.loads(urllib.parse.unquote(intent[len(prefix):-len(";end")]))


@pytest.fixture(scope="module")
def app(server, simulator):
    return new_app(server, simulator)


def test_one_push_reaches_every_platform_and_vendor_in_its_own_shape(server, simulator, app):
    channel = "mix-" + secrets.token_hex(4)
    ios_token = secrets.token_hex(32)
    save(server, app, {"deviceType": "ios", "deviceToken": ios_token, "channels": [channel]})
    plain_fcm, leancloud_fcm = "fcmplain-" + secrets.token_hex(8), "fcmlc-" + secrets.token_hex(8)
    android(server, app, None, plain_fcm, channel)
    android(server, app, "fcm", leancloud_fcm, channel)
    tokens = {vendor: vendor.lower() + "-" + secrets.token_hex(8) for vendor in VENDORS}
    for vendor, token in tokens.items():
        android(server, app, vendor, token, channel)
    own = Device(app, server.base_url, channels=[channel])
    data = {
        "alert": "shared alert", "title": "Shared", "k": "v",
        "ios": {"alert": "for ios", "badge": 3},
        "android": {"alert": "for android", "title": "A"},
        "fcm": {"alert": "for fcm"},
        "hms": {"alert": "for hms", "category": "IM"},
        "mi": {"title": "Mi title", "channel_id": "mi-ch"},
        "oppo": {"alert": "for oppo", "channel_id": "oppo-ch"},
        "vivo": {"alert": "for vivo", "category": "IM", "custom": 7},
        "mz": {"alert": "for mz"},
        "honor": {"alert": "for honor", "importance": "NORMAL"},
    }
    before = vendor_stats(simulator)
    with own.connect() as ws:
        push_id = push(server, app, {"channels": [channel], "data": data})
        frame = next_message(ws)
        # The own channel: `data.android`, nothing of the vendors'.
        assert frame["data"] == {"alert": "for android", "title": "A", "_nid": push_id}, frame
        ack(ws, frame)
        rec = wait_record(server, app, push_id, lambda r: done(r) and r["successes"] == 10)
    assert (rec["devices"], rec["successes"], rec["errors"]) == (10, 10, 0), rec
    assert (rec["iosSuccesses"], rec["androidSuccesses"]) == (1, 9), rec
    assert {c: rec[c] for c in COUNTERS} == {
        "hmsSuccesses": 1, "miSuccesses": 1, "oppoSuccesses": 1, "vivoSuccesses": 1, "mzSuccesses": 1,
        "honorSuccesses": 1, "fcmSuccesses": 2, "lcSuccesses": 1}, rec
    after = vendor_stats(simulator)
    for v in ["hms", "honor", "mi", "oppo", "vivo", "mz"]:
        assert after[v]["accepted"] - before[v]["accepted"] == 1, (v, before[v], after[v])
    expected_vendors = {c: 2 if c == "fcmSuccesses" else 1 for c in COUNTERS}
    # The opens report breaks successes down by vendor too.
    report = json.loads(server.cli("report", "opens", "--app", app.app_id, "--format", "json").stdout)
    [row] = [r for r in report if r["objectId"] == push_id]
    assert row["vendorSuccesses"] == expected_vendors, row
    # So does the console's page of the push.
    console = requests.Session()
    page = console.get(server.base_url + "/console/login").text
    csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
    console.post(server.base_url + "/console/login",
                 data={"_csrf": csrf, "appId": app.app_id, "masterKey": app.master_key})
    page = console.get(server.base_url + "/console/pushes/" + push_id).text
    shown = dict(re.findall(r'data-field="(\w+Successes)">(\d+)<', page))
    assert {c: int(shown.get(c, 0)) for c in COUNTERS} == expected_vendors, shown

    def merged(**own):
        return {"alert": "shared alert", "title": "Shared", "k": "v", "_nid": push_id} | own

    # APNs: `data.ios` only.
    apns = recorded(simulator, ios_token)["recorded"][-1]["payload"]
    assert apns["aps"]["alert"] == "for ios" and apns["aps"]["badge"] == 3, apns
    assert set(apns) == {"aps", "_nid"}, apns
    # FCM without a vendor: today's shape, `data.fcm` over the shared keys, every value a string.
    message = recorded(simulator, plain_fcm)["recorded"][-1]["payload"]["message"]
    assert message["data"] == {"alert": "for fcm", "title": "Shared", "k": "v", "_nid": push_id}, message
    assert message["notification"] == {"title": "Shared", "body": "for fcm"}, message
    # `vendor: fcm`: what LeanCloud's FCM module reads, the JSON in `data.payload`.
    message = recorded(simulator, leancloud_fcm)["recorded"][-1]["payload"]["message"]
    assert message["notification"] == {"title": "Shared", "body": "for fcm"}, message
    assert set(message["data"]) == {"payload"} and json.loads(message["data"]["payload"]) == merged(
        alert="for fcm"), message

    # HMS: one JSON request, the LeanCloud JSON in `data` and in the click intent, `category` native.
    hms = recorded(simulator, tokens["HMS"])["recorded"][-1]
    assert hms["path"] == "/hms/v1/%s/messages:send" % HMS_APP, hms
    assert hms["headers"]["authorization"].startswith("Bearer "), hms["headers"]
    body = hms["payload"]
    assert body["validate_only"] is False and body["message"]["token"] == [tokens["HMS"]], body
    assert json.loads(body["message"]["data"]) == merged(alert="for hms"), body
    hms_android = body["message"]["android"]
    assert hms_android["category"] == "IM", hms_android
    note = hms_android["notification"]
    assert (note["title"], note["body"], note["click_action"]["type"]) == ("Shared", "for hms", 1), note
    assert percent_decoded_content(note["click_action"]["intent"]) == merged(alert="for hms"), note

    # Honor: as HMS, in Honor's camelCase, with the timestamp header; `importance` native.
    honor = recorded(simulator, tokens["honor"])["recorded"][-1]
    assert honor["path"] == "/honor/api/v1/%s/sendMessage" % HONOR_APP, honor
    assert honor["headers"]["timestamp"].isdigit(), honor["headers"]
    body = honor["payload"]
    assert body["token"] == [tokens["honor"]] and json.loads(body["data"]) == merged(alert="for honor"), body
    note = body["android"]["notification"]
    assert (note["title"], note["body"]) == ("Shared", "for honor"), note
    assert percent_decoded_content(note["clickAction"]["intent"]) == merged(alert="for honor"), note
    assert "importance" not in json.loads(body["data"]), body

    # Xiaomi: a form with `key=` auth; `channel_id` native, sent as `extra.channel_id`.
    mi = recorded(simulator, tokens["mi"])["recorded"][-1]
    assert mi["path"] == "/mi/v3/message/regid" and mi["headers"]["authorization"] == "key=" + MI_SECRET, mi
    form = mi["payload"]
    assert form["registration_id"] == tokens["mi"] and form["restricted_package_name"] == MI_PACKAGE, form
    assert form["payload"] == merged(title="Mi title"), form
    assert (form["pass_through"], form["title"], form["description"]) == ("0", "Mi title", "shared alert"), form
    assert (form["notify_type"], form["extra.notify_effect"], form["extra.channel_id"]) == ("-1", "1", "mi-ch"), form
    assert "time_to_live" not in form, form

    # OPPO: unicast_batch with the JSON in `action_parameters`.
    oppo = recorded(simulator, tokens["oppo"])["recorded"][-1]
    assert oppo["path"] == "/oppo/server/v1/message/notification/unicast_batch", oppo
    [item] = oppo["payload"]["messages"]
    assert (item["target_type"], item["target_value"]) == (2, tokens["oppo"]), item
    note = item["notification"]
    assert (note["title"], note["content"], note["click_action_type"], note["channel_id"]) == (
        "Shared", "for oppo", 0, "oppo-ch"), note
    assert json.loads(note["action_parameters"]) == merged(alert="for oppo"), note

    # vivo: one device is `/message/send`; custom keys in `clientCustomMap` as strings; `category` native.
    vivo = recorded(simulator, tokens["vivo"])["recorded"][-1]
    assert vivo["path"] == "/vivo/message/send" and vivo["headers"]["authtoken"], vivo
    body = vivo["payload"]
    assert (body["appId"], body["regId"], body["notifyType"], body["skipType"]) == (
        VIVO_APP, tokens["vivo"], 4, 1), body
    assert (body["title"], body["content"], body["category"]) == ("Shared", "for vivo", "IM"), body
    assert body["clientCustomMap"] == {"k": "v", "custom": "7", "_nid": push_id}, body
    assert body["requestId"], body

    # Meizu: a signed form, the JSON in the click parameters.
    mz = recorded(simulator, tokens["mz"])["recorded"][-1]
    assert mz["path"] == "/mz/garcia/api/server/push/varnished/pushByPushId", mz
    form = mz["payload"]
    assert form["pushIds"] == tokens["mz"] and form["sign"], form
    message = form["messageJson"]
    assert message["noticeBarInfo"]["title"] == "Shared" and message["noticeBarInfo"]["content"] == "for mz", message
    assert json.loads(message["clickTypeInfo"]["parameters"]["content"]) == merged(alert="for mz"), message

    # No platform key of another platform reached any device.
    for token in [ios_token, plain_fcm, leancloud_fcm, *tokens.values()]:
        shown = json.dumps(recorded(simulator, token)["recorded"][-1]["payload"])
        for other in ["for ios", "for android", "\\\"ios\\\"", "\\\"hms\\\"", "\\\"oppo\\\""]:
            if other == "for ios" and token == ios_token:
                continue
            assert other not in shown, (token, other, shown)


def test_invalid_tokens_invalidate_exactly_those_installations(server, simulator, app):
    channel = "inv-" + secrets.token_hex(4)
    good, bad = {}, {}
    for vendor in VENDORS:
        good[vendor] = android(server, app, vendor, vendor.lower() + "-" + secrets.token_hex(8), channel)
        bad[vendor] = android(server, app, vendor, "invalid-" + secrets.token_hex(8), channel)
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "hello"}})
    rec = wait_record(server, app, push_id, done)
    assert (rec["devices"], rec["successes"], rec["errors"]) == (12, 6, 6), rec.get("errorReasons")
    for vendor in VENDORS:
        assert installation(server, app, good[vendor]).get("valid", True) is True, vendor
        assert installation(server, app, bad[vendor])["valid"] is False, vendor
    # The token stays (SPEC §12.3): the device is simply not targeted again until it saves a new one.
    assert installation(server, app, bad["HMS"])["registrationId"].startswith("invalid-")
    again = push(server, app, {"channels": [channel], "data": {"alert": "again"}})
    rec = wait_record(server, app, again, done)
    assert (rec["devices"], rec["successes"], rec["errors"]) == (6, 6, 0), rec
    # A new registrationId makes it valid again.
    r = requests.put(server.url("/installations/" + bad["mi"]), json={"registrationId": "mi-" + secrets.token_hex(8)},
                     headers=app.master_headers())
    assert r.status_code == 200, r.text
    assert installation(server, app, bad["mi"])["valid"] is True


def test_explain_names_the_vendor_and_its_answer(server, simulator, app):
    channel = "exp-" + secrets.token_hex(4)
    good = android(server, app, "HMS", "hms-" + secrets.token_hex(8), channel)
    bad = android(server, app, "oppo", "invalid-" + secrets.token_hex(8), channel)
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "explain me"}})
    wait_record(server, app, push_id, done)

    def explain(object_id):
        out = server.cli("explain", "--app", app.app_id, "--push", push_id, "--installation", object_id,
                         "--format", "json").stdout
        return json.loads(out)["delivery"]

    delivered = explain(good)
    assert (delivered["state"], delivered["route"]) == ("delivered", "HMS"), delivered
    failed = explain(bad)
    assert (failed["state"], failed["route"], failed["reason"]) == ("failed", "oppo", "oppo 10000"), failed
    text = server.cli("explain", "--app", app.app_id, "--push", push_id, "--installation", bad).stdout
    assert "sent through oppo" in text and "oppo 10000" in text, text


def test_retry_answers_back_off_and_deliver(server, simulator, app):
    channel = "retry-" + secrets.token_hex(4)
    for vendor in VENDORS:
        android(server, app, vendor, "unavailable-" + secrets.token_hex(8), channel)
    before = vendor_stats(simulator)
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "eventually"}})
    rec = wait_record(server, app, push_id, done, timeout=60)
    assert (rec["devices"], rec["successes"], rec["errors"]) == (6, 6, 0), rec.get("errorReasons")
    after = vendor_stats(simulator)
    for v in ["hms", "honor", "mi", "oppo", "vivo", "mz"]:
        # Two retry answers, then the delivery: three sends of the one device.
        assert after[v]["requests"] - before[v]["requests"] == 3, (v, before[v], after[v])
        assert after[v]["accepted"] - before[v]["accepted"] == 1, (v, before[v], after[v])


def test_profile_without_credentials_is_no_credentials_and_the_rest_is_delivered(server, simulator, app):
    channel = "nocred-" + secrets.token_hex(4)
    reached = android(server, app, "HMS", "hms-" + secrets.token_hex(8), channel)
    # A named profile does not inherit the unprefixed keys (SPEC §12.3): it has none.
    stranded = android(server, app, "HMS", "hms-" + secrets.token_hex(8), channel, deviceProfile="nokeys")
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "hi"}})
    rec = wait_record(server, app, push_id, done)
    assert (rec["devices"], rec["successes"], rec["errors"], rec["hmsSuccesses"]) == (2, 1, 1, 1), rec
    assert rec["errorReasons"] == {"NoCredentials": 1}, rec
    assert installation(server, app, stranded).get("valid", True) is True


def test_silent_to_oppo_is_pass_through_unsupported(server, simulator, app):
    channel = "silent-" + secrets.token_hex(4)
    android(server, app, "oppo", "oppo-" + secrets.token_hex(8), channel)
    android(server, app, "mi", "mi-" + secrets.token_hex(8), channel)
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "quiet", "silent": True}})
    rec = wait_record(server, app, push_id, done)
    assert (rec["devices"], rec["successes"], rec["errors"], rec["miSuccesses"]) == (2, 1, 1, 1), rec
    assert rec["errorReasons"] == {"PassThroughUnsupported": 1}, rec


def test_push_devices_takes_vendor_profile_and_channel(server, simulator, app):
    token = "hms-" + secrets.token_hex(8)
    r = requests.post(server.url("/push/devices"), headers=app.master_headers(), json={
        "device_type": "android", "device_ids": [token], "vendor": "HMS", "channel": "news-channel",
        "data": {"alert": "direct", "title": "To one"}})
    assert r.status_code == 200, r.text
    rec = wait_record(server, app, r.json()["objectId"], done)
    assert (rec["successes"], rec["hmsSuccesses"]) == (1, 1), rec
    note = recorded(simulator, token)["recorded"][-1]["payload"]["message"]["android"]["notification"]
    assert (note["title"], note["body"], note["channel_id"]) == ("To one", "direct", "news-channel"), note
    # An unknown vendor is refused with the LeanCloud-style error naming it.
    r = requests.post(server.url("/push/devices"), headers=app.master_headers(), json={
        "device_type": "android", "device_ids": [token], "vendor": "nokia", "data": {"alert": "x"}})
    assert r.status_code == 400 and r.json()["code"] == 1 and "vendor" in r.json()["error"], r.text


def test_quota_stops_that_vendor_for_the_day_and_no_other(server, simulator):
    app = new_app(server, simulator)
    channel = "quota-" + secrets.token_hex(4)
    for vendor in ["mi", "oppo", "vivo"]:
        android(server, app, vendor, "quota-" + secrets.token_hex(8), channel)
    android(server, app, "HMS", "hms-" + secrets.token_hex(8), channel)
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "too many"}})
    rec = wait_record(server, app, push_id, done)
    assert (rec["devices"], rec["successes"], rec["errors"], rec["hmsSuccesses"]) == (4, 1, 3, 1), rec
    assert rec["errorReasons"] == {"VendorQuota": 3}, rec
    # Good devices of those vendors are not even tried again today; HMS still is.
    later = "later-" + secrets.token_hex(4)
    for vendor in ["mi", "oppo", "vivo", "HMS"]:
        android(server, app, vendor, vendor.lower() + "-" + secrets.token_hex(8), later)
    before = vendor_stats(simulator)
    push_id = push(server, app, {"channels": [later], "data": {"alert": "still?"}})
    rec = wait_record(server, app, push_id, done)
    assert (rec["devices"], rec["successes"], rec["errors"], rec["hmsSuccesses"]) == (4, 1, 3, 1), rec
    assert rec["errorReasons"] == {"VendorQuota": 3}, rec
    after = vendor_stats(simulator)
    for v in ["mi", "oppo", "vivo"]:
        assert after[v]["requests"] == before[v]["requests"], (v, before[v], after[v])
    assert after["hms"]["accepted"] - before["hms"]["accepted"] == 1


def test_access_tokens_are_refreshed_after_expiry_and_after_an_auth_error(server, simulator):
    app = new_app(server, simulator)
    channel = "tok-" + secrets.token_hex(4)
    with_exchange = ["HMS", "honor", "oppo", "vivo"]
    for vendor in with_exchange:
        android(server, app, vendor, vendor.lower() + "-" + secrets.token_hex(8), channel)

    def push_and_wait(alert):
        push_id = push(server, app, {"channels": [channel], "data": {"alert": alert}})
        rec = wait_record(server, app, push_id, done)
        assert (rec["devices"], rec["successes"], rec["errors"]) == (4, 4, 0), rec

    def exchanges(stats):
        return {v: stats[v.lower() + "Auth"]["requests"] for v in with_exchange}

    sim_control(simulator, "POST", "/config", {"vendorTokenLifetimeSeconds": 3})
    try:
        first = vendor_stats(simulator)
        push_and_wait("first")
        second = vendor_stats(simulator)
        time.sleep(4)  # every token the vendors issued has expired
        push_and_wait("after expiry")
        third = vendor_stats(simulator)
        for v in with_exchange:
            # A new app's clients have no token yet: the first push buys one.
            assert exchanges(second)[v] > exchanges(first)[v], (v, first, second)
            assert exchanges(third)[v] > exchanges(second)[v], (v, second, third)
    finally:
        sim_control(simulator, "POST", "/config", {"vendorTokenLifetimeSeconds": None})
    push_and_wait("long-lived token")
    revoked = sim_control(simulator, "POST", "/vendors/revoke")
    assert revoked["revoked"] >= len(with_exchange), revoked
    before = vendor_stats(simulator)
    push_and_wait("after revocation")
    after = vendor_stats(simulator)
    for v in with_exchange:
        key = v.lower()
        assert exchanges(after)[v] - exchanges(before)[v] == 1, (v, before, after)
        # One send refused with the auth error, then one delivered with the new token.
        assert after[key]["requests"] - before[key]["requests"] == 2, (v, before[key], after[key])
        assert after[key]["accepted"] - before[key]["accepted"] == 1, (v, before[key], after[key])


def test_an_unknown_vendor_is_refused_at_save_with_nothing_written(server, app):
    before = server.event_count(app.app_id)
    body = {"deviceType": "android", "registrationId": "r-" + secrets.token_hex(6),
            "installationId": "i-" + secrets.token_hex(6), "vendor": "nokia"}
    r = requests.post(server.url("/installations"), json=body, headers=app.master_headers())
    assert r.status_code == 400 and r.json()["code"] == 1 and "vendor" in r.json()["error"], r.text
    object_id = android(server, app, "HMS", "hms-" + secrets.token_hex(8), "nokia-" + secrets.token_hex(3))
    after_save = server.event_count(app.app_id)
    assert after_save == before + 1
    r = requests.put(server.url("/installations/" + object_id), json={"vendor": "nokia"},
                     headers=app.master_headers())
    assert r.status_code == 400 and r.json()["code"] == 1, r.text
    assert server.event_count(app.app_id) == after_save
    assert installation(server, app, object_id)["vendor"] == "HMS"


@pytest.mark.parametrize("setting, named", [
    ("hms.app_secret=x", "hms.app_secret"),
    ("nokia.app_id=1", "nokia.app_id"),
    ("hms.endpoint=http://push.example.com", "hms.endpoint"),
    ("vivo.app_id=not-a-number", "vivo.app_id"),
    ("hms.intent_host=has space", "hms.intent_host"),
])
def test_bad_vendor_settings_are_refused_with_the_key_named(server, app, setting, named):
    done_ = server.cli("app", "set", "--app", app.app_id, setting, check=False)
    assert done_.returncode != 0 and named in (done_.stdout + done_.stderr), (done_.stdout, done_.stderr)
