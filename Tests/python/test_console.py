"""Issue 17's acceptance: the web console at /console, driven in a real headless Chromium (Playwright for Python,
the system's /usr/bin/chromium; no browser is downloaded) against the real server and the provider simulator.

Expected figures come from independent sources: device counts from the devices this test registered, successes
from the simulator's own per-token counts, chart figures from the JSON reports over REST. Screenshots of every
page go to PUSHLEDGER_CONSOLE_SCREENSHOTS (docs/console when the docs are refreshed) or to a temporary folder;
the folder is printed.
"""

import datetime
import json
import os
import pathlib
import re
import secrets
import time

import pytest
import requests

CHROMIUM = os.environ.get("PUSHLEDGER_CHROMIUM", "/usr/bin/chromium")

# Skipped without Chromium, unless scripts/test says it is required (it installs Debian's chromium).
pytestmark = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK) and os.environ.get("PUSHLEDGER_REQUIRE_CHROMIUM") != "1",
    reason="no Chromium at %s" % CHROMIUM)


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = os.environ.get("PUSHLEDGER_CONSOLE_SCREENSHOTS")
    path = pathlib.Path(folder) if folder else tmp_path_factory.mktemp("console-screenshots")
    path.mkdir(parents=True, exist_ok=True)
    print("\nconsole screenshots: %s" % path)
    return path


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # --no-sandbox: the tests may run as root, where Chromium refuses its sandbox.
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def devices(server, push_app):
    """Devices in a channel of their own: 3 iOS (one whose token the simulator answers 410 Unregistered) and
    2 Android with FCM registration ids; plus one iOS device outside the channel."""
    channel = "console_" + secrets.token_hex(4)
    made = {"channel": channel, "ios": [], "android": [], "outside": None, "dead": None}

    def register(body):
        r = requests.post(server.url("/installations"), json=body, timeout=10,
                          headers={"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key})
        assert r.status_code in (200, 201), r.text
        return r.json()["objectId"]

    for i in range(3):
        token = ("dead" if i == 2 else "a1c0") + secrets.token_hex(30)
        oid = register({"deviceType": "ios", "deviceToken": token, "channels": [channel]})
        made["ios"].append((oid, token))
        if i == 2:
            made["dead"] = (oid, token)
    for _ in range(2):
        reg = "console-reg-" + secrets.token_hex(12)
        oid = register({"deviceType": "android", "installationId": "inst-" + secrets.token_hex(8),
                        "registrationId": reg, "channels": [channel]})
        made["android"].append((oid, reg))
    token = "a1c1" + secrets.token_hex(30)
    made["outside"] = (register({"deviceType": "ios", "deviceToken": token, "channels": ["elsewhere"]}), token)
    return made


def login(page, server, app):
    page.goto(server.base_url + "/console/login")
    page.fill("#appId", app.app_id)
    page.fill("#masterKey", app.master_key)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/console/pushes$"))


def reload_until(page, predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
        page.reload()
    return predicate()


def chart_data(page):
    return [json.loads(el.text_content()) for el in page.query_selector_all("script.chart-data")]


def test_console(server, push_app, simulator, devices, browser, shots):
    # A browser in Shanghai: times are shown in its zone, UTC on hover.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="Asia/Shanghai")
    page = context.new_page()
    master = push_app.master_headers()

    # GET / sends a new user to the console; without a session the console asks for a login.
    page.goto(server.base_url + "/")
    assert page.url.endswith("/console/login"), page.url

    # A wrong key is a clear message (401), and nothing is signed in.
    page.fill("#appId", push_app.app_id)
    page.fill("#masterKey", "not-the-master-key")
    with page.expect_response(lambda r: r.url.endswith("/console/login") and r.request.method == "POST") as answer:
        page.click("button[type=submit]")
    assert answer.value.status == 401
    assert "Wrong app id or master key" in page.text_content("#login-error")
    page.screenshot(path=str(shots / "login-wrong-key.png"), full_page=True)

    login(page, server, push_app)
    assert page.text_content("#signed-in-app") == push_app.app_id
    page.screenshot(path=str(shots / "pushes-empty.png"), full_page=True)

    # Send: the preview counts what the fan-out will target (the channel's 3 iOS and 2 Android devices).
    page.click("a[href='/console/send']")
    page.fill("#alert", "Hello from the console")
    page.check("input[name=audience][value=channels]")
    page.fill("#channels", devices["channel"])
    page.click("#preview-button")
    assert page.text_content("#preview-total").strip() == "5"
    assert page.text_content("tr[data-platform=ios] td.num").strip() == "3"
    assert page.text_content("tr[data-platform=android] td.num").strip() == "2"
    quota_left = int(page.text_content("#quota-left"))
    assert 0 < quota_left <= 1_000_000
    page.screenshot(path=str(shots / "send-preview.png"), full_page=True)

    # Send lands on the record, which reaches `done` with the counts the simulator confirms.
    page.click("#send-button")
    page.wait_for_url(re.compile(r".*/console/pushes/\w+\?notice=sent$"))
    push_id = page.text_content("#push-id").strip()
    assert reload_until(page, lambda: page.get_attribute("#push-status", "data-status") == "done")
    accepted = {token: simulator.requests_for(token)["accepted"] for _, token in devices["ios"] + devices["android"]}
    dead_token = devices["dead"][1]
    assert accepted[dead_token] == 0 and sum(accepted.values()) == 4, accepted

    def count(field):
        return int(page.text_content("#counts [data-field=%s]" % field))

    assert count("devices") == 5
    assert count("successes") == sum(accepted.values())
    assert count("iosSuccesses") == sum(accepted[t] for _, t in devices["ios"])
    assert count("androidSuccesses") == sum(accepted[t] for _, t in devices["android"])
    assert count("errors") == 1 and count("invalidTokens") == 1
    assert "Unregistered" in page.text_content("#reasons")
    types = [li.get_attribute("data-type") for li in page.query_selector_all("#timeline li")]
    assert types[0] == "PushRequested" and "PushTargeted" in types and "PushTargetingCompleted" in types
    assert "PushBatchDelivered" in types and types[-1] == "PushCompleted", types
    page.screenshot(path=str(shots / "push-detail.png"), full_page=True)

    created = page.query_selector("dl.facts time")
    assert created.get_attribute("title") == "UTC: " + created.get_attribute("datetime")
    assert "GMT+8" in created.text_content() and "UTC" not in created.text_content(), created.text_content()

    # Reading works without JavaScript: the same record, its times in UTC, every send tab shown.
    bare = browser.new_context(java_script_enabled=False)
    plain = bare.new_page()
    login(plain, server, push_app)
    plain.goto(page.url)
    assert plain.get_attribute("#push-status", "data-status") == "done"
    assert plain.text_content("dl.facts time").endswith(" UTC")
    assert int(plain.text_content("#counts [data-field=successes]")) == sum(accepted.values())
    plain.goto(server.base_url + "/console/send")
    assert all(panel.is_visible() for panel in plain.query_selector_all(".tabpanel"))
    bare.close()

    # The list shows it with who sent it.
    page.click("a[href='/console/pushes']")
    row = page.query_selector("tr[data-push='%s']" % push_id)
    assert row is not None
    assert "master key from 127.0.0.1" in row.text_content()
    assert row.query_selector("[data-field=successes]").text_content() == "4"

    # An app open of that push, so the open-rate report has a figure to chart.
    opened = requests.post(server.url("/events/AppOpened"), headers=master, timeout=10,
                           json={"objectId": devices["ios"][0][0], "notificationId": push_id})
    assert opened.status_code in (200, 201), opened.text
    page.reload()
    page.screenshot(path=str(shots / "pushes.png"), full_page=True)

    # A scheduled push, cancelled from its page: it never leaves the schedule.
    page.click("a[href='/console/send']")
    page.fill("#alert", "Later")
    page.fill("#channels", devices["channel"])
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    page.fill("#push_time", later)
    page.click("#send-button")
    page.wait_for_url(re.compile(r".*/console/pushes/\w+\?notice=sent$"))
    scheduled_id = page.text_content("#push-id").strip()
    assert page.get_attribute("#push-status", "data-status") == "scheduled"
    listed = requests.get(server.url("/scheduledPushMessages"), headers=master, timeout=10).json()["results"]
    assert any(r["push_msg"]["data"] == {"alert": "Later"} for r in listed)
    page.click("#cancel-push")
    page.wait_for_url(re.compile(r".*\?notice=cancelled$"))
    assert page.get_attribute("#push-status", "data-status") == "cancelled"
    assert page.query_selector("#cancel-push") is None
    record = requests.get(server.url("/notifications/" + scheduled_id), headers=master, timeout=10).json()
    assert record["status"] == "cancelled" and record["devices"] == 0, record
    listed = requests.get(server.url("/scheduledPushMessages"), headers=master, timeout=10).json()["results"]
    assert not any(r["push_msg"]["data"] == {"alert": "Later"} for r in listed)
    page.screenshot(path=str(shots / "push-cancelled.png"), full_page=True)

    # A device list is previewed with the lookup /push/devices records its targets with: the token the
    # provider declared invalid (410 above) is dropped.
    page.click("a[href='/console/send']")
    page.fill("#alert", "To a list")
    page.check("input[name=audience][value=devices]")
    page.fill("textarea[name=device_ids]", "\n".join(t for _, t in devices["ios"]))
    page.click("#preview-button")
    assert page.text_content("#preview-total").strip() == "2"
    assert page.text_content("tr[data-platform=ios] td.num").strip() == "2"

    # Installations: found by its token; explain says why it was not targeted, and that another one was.
    outside_id, outside_token = devices["outside"]
    page.click("a[href='/console/installations']")
    page.screenshot(path=str(shots / "installations-empty.png"), full_page=True)
    page.fill("#lookup", outside_token)
    page.fill("#explain-push", push_id)
    page.click("form[aria-label='Look up an installation'] button")
    assert page.text_content("#installation-id").strip() == outside_id
    assert "EXCLUDED by: where.channels" in page.text_content("#verdict")
    assert "not targeted" in page.text_content("#delivery")
    assert "InstallationCreated" in page.text_content("#history")
    page.screenshot(path=str(shots / "installation-explain.png"), full_page=True)
    page.fill("#lookup", devices["ios"][0][0])
    page.click("form[aria-label='Look up an installation'] button")
    assert page.text_content("#verdict").startswith("TARGETED")
    assert "delivered" in page.text_content("#delivery")
    assert "offline" in page.text_content("#presence")

    # Reports: every chart's figures equal the JSON report over REST.
    page.goto(server.base_url + "/console/reports?name=billing")
    billing = requests.get(server.url("/reports/billing"), headers=master, timeout=10).json()
    charts = {c["title"]: c for c in chart_data(page)}
    pushes_chart = charts["Pushes (devices) per day"]
    assert pushes_chart["categories"] == [r["day"] for r in billing]
    assert pushes_chart["series"][0]["values"] == [r["pushes"] for r in billing]
    assert charts["Peak calls per minute"]["series"][0]["values"] == [r["peakCallsPerMinute"] for r in billing]
    assert sum(r["pushes"] for r in billing) >= 5
    assert page.text_content("#cost-total").startswith("¥")
    page.screenshot(path=str(shots / "report-billing.png"), full_page=True)

    page.goto(server.base_url + "/console/reports?name=opens")
    by_push = requests.get(server.url("/reports/opens"), headers=master, timeout=10).json()
    by_day = requests.get(server.url("/reports/opens"), params={"by": "day"}, headers=master, timeout=10).json()
    charts = {c["title"]: c for c in chart_data(page)}
    per_push = charts["Open rate per push in % (unique opens / successes)"]
    assert per_push["series"][0]["values"] == [round(r["openRate"] * 100, 2) for r in by_push]
    ours = [r for r in by_push if r["objectId"] == push_id]
    assert ours and ours[0]["uniqueOpens"] == 1 and ours[0]["openRate"] == 0.25, ours
    per_day = charts["Open rate per day in % (unique push opens / successes)"]
    days = sorted({r["day"] for r in by_day})
    assert per_day["categories"] == days
    expected = []
    for day in days:
        rows = [r for r in by_day if r["day"] == day]
        successes = sum(r["successes"] for r in rows)
        expected.append(round(sum(r["uniqueOpens"] for r in rows) * 100 / successes, 2) if successes else 0)
    assert per_day["series"][0]["name"] == "all" and per_day["series"][0]["values"] == expected
    csv = page.get_attribute("#csv-download", "href")
    download = context.request.get(server.base_url + csv)
    assert download.status == 200 and download.text().splitlines()[0].startswith("objectId,")
    page.screenshot(path=str(shots / "report-opens.png"), full_page=True)

    # Audit: who pushed what, from where, filtered by action.
    page.goto(server.base_url + "/console/audit?action=PushRequested")
    audit = page.text_content("#audit")
    assert "push:" + push_id in audit and "127.0.0.1" in audit and "master" in audit
    assert "InstallationCreated" not in audit
    page.screenshot(path=str(shots / "audit.png"), full_page=True)

    # Bad input is a message on the page with the API's code, never a 500, and records nothing.
    events_before = server.event_count(push_app.app_id)
    answer = page.goto(server.base_url + "/console/pushes?status=bogus")
    assert answer.status == 400 and "Unknown status bogus" in page.text_content("#error-message")
    assert page.goto(server.base_url + "/console/pushes?page=99999999999999999").status == 200
    assert page.goto(server.base_url + "/console/reports?name=billing&from=2026-02-30").status == 400
    page.goto(server.base_url + "/console/send")
    page.fill("#alert", "bad query")
    page.check("input[name=audience][value=where]")
    page.fill("textarea[name=where]", '{"deviceType": ')
    with page.expect_response(lambda r: r.url.endswith("/console/send")) as answer:
        page.click("#send-button")
    assert answer.value.status == 400 and page.text_content("#send-error").startswith("Code 107")
    assert page.input_value("#alert") == "bad query"
    page.fill("textarea[name=where]", '{"deviceType": {"$bogus": 1}}')
    page.click("#preview-button")
    assert page.text_content("#send-error").startswith("Code 102")
    page.goto(server.base_url + "/console/installations?q=%s&push=nope" % outside_id)
    assert page.text_content("#installation-id").strip() == outside_id
    assert page.text_content("#explain-error").startswith("Code 101")
    assert server.event_count(push_app.app_id) == events_before

    # Keyboard: the first Tab reaches the skip link, and the navigation is made of links.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"

    # A form without its CSRF token is refused, with the session cookie and all, and changes nothing.
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    events_before = server.event_count(push_app.app_id)
    forged = requests.post(server.base_url + "/console/send", cookies=cookies, allow_redirects=False, timeout=10,
                           data={"alert": "forged", "channels": devices["channel"], "action": "send"})
    assert forged.status_code == 403 and "CSRF" in forged.text
    wrong = requests.post(server.base_url + "/console/pushes/%s/cancel" % push_id, cookies=cookies, timeout=10,
                          data={"_csrf": "0" * 64}, allow_redirects=False)
    assert wrong.status_code == 403
    login_form = requests.post(server.base_url + "/console/login", allow_redirects=False, timeout=10,
                               data={"appId": push_app.app_id, "masterKey": push_app.master_key})
    assert login_form.status_code == 403 and "pl_console" not in login_form.headers.get("Set-Cookie", "")
    assert server.event_count(push_app.app_id) == events_before
    page.goto(server.base_url + "/console/send")
    page.evaluate("document.querySelector('#send-form input[name=_csrf]').remove()")
    page.fill("#alert", "no token")
    with page.expect_response(lambda r: r.url.endswith("/console/send")) as answer:
        page.click("#send-button")
    assert answer.value.status == 403
    assert "security token (CSRF)" in page.text_content("#error-message")
    page.screenshot(path=str(shots / "csrf-refused.png"), full_page=True)
    assert server.event_count(push_app.app_id) == events_before

    # Cookie flags.
    session = [c for c in context.cookies() if c["name"] == "pl_console"][0]
    assert session["httpOnly"] and session["sameSite"] == "Strict" and session["path"] == "/console"

    # Log out: the session is gone and the console asks for a login again.
    page.goto(server.base_url + "/console/pushes")
    page.click("form.logout button")
    page.wait_for_url(re.compile(r".*/console/login\?out=1$"))
    page.goto(server.base_url + "/console/pushes")
    assert page.url.endswith("/console/login")
    context.close()


def test_five_wrong_keys_in_a_minute_lock_the_address(server, push_app, browser, shots):
    """Runs after the console test: it locks 127.0.0.1 out of the console's login for a minute."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.base_url + "/console/login")
    statuses = []
    for _ in range(5):
        page.fill("#appId", push_app.app_id)
        page.fill("#masterKey", "wrong-" + secrets.token_hex(4))
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.click("button[type=submit]")
        statuses.append(answer.value.status)
    assert statuses == [401, 401, 401, 401, 429], statuses
    # Even the right key is refused while the address is locked.
    page.fill("#appId", push_app.app_id)
    page.fill("#masterKey", push_app.master_key)
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button[type=submit]")
    assert answer.value.status == 429
    assert "locked" in page.text_content("#login-error")
    page.screenshot(path=str(shots / "login-locked.png"), full_page=True)
    context.close()
