"""Operability (issue 14): /metrics agrees with the push records, X-Request-Id reaches the log and the
audit trail, /health and /ready answer. Against the session's real server (conftest.py), which logs JSON.
"""

import json
import re
import secrets
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families


def scrape(server, headers=None):
    r = requests.get(server.base_url + "/metrics", headers=headers or {}, timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    # The whole exposition must parse; a malformed line raises here.
    return list(text_string_to_metric_families(r.text))


def samples(families, name, **labels):
    """Sum of the samples called `name` whose labels include `labels`."""
    total = 0.0
    for family in families:
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def master_headers(app):
    return {"X-LC-Id": app.app_id, "X-LC-Key": app.master_key + ",master", "Content-Type": "application/json"}


def wait_record(server, app, object_id, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        r = requests.get(server.url("/notifications/" + object_id), headers=master_headers(app), timeout=10)
        assert r.status_code == 200, r.text
        record = r.json()
        if record["status"] == "done":
            return record
        assert time.monotonic() < deadline, "push not done: %r" % record
        time.sleep(0.2)


def test_delivery_counters_equal_the_push_record(server, push_app, simulator):
    headers = master_headers(push_app)
    channel = "metrics_" + secrets.token_hex(4)
    good = [secrets.token_hex(32) for _ in range(6)]
    # "dead…" tokens are answered 410 Unregistered by the simulator: invalid-token errors.
    dead = ["dead" + secrets.token_hex(30) for _ in range(2)]
    for token in good + dead:
        r = requests.post(server.url("/installations"), headers=headers, timeout=10,
                          data=json.dumps({"deviceType": "ios", "deviceToken": token, "channels": [channel]}))
        assert r.status_code in (200, 201), r.text

    before = scrape(server)
    r = requests.post(server.url("/push"), headers=headers, timeout=10,
                      data=json.dumps({"channels": [channel], "data": {"alert": "metrics"}}))
    assert r.status_code == 200, r.text
    record = wait_record(server, push_app, r.json()["objectId"])
    after = scrape(server)

    def delta(name, **labels):
        return samples(after, name, **labels) - samples(before, name, **labels)

    # The expected counts come from what was registered, checked against the record, then the counters.
    assert (record["successes"], record["errors"], record["invalidTokens"]) == (6, 2, 2)
    assert delta("pushledger_deliveries_total", provider="apns", outcome="delivered") == record["successes"]
    assert delta("pushledger_deliveries_total", provider="apns", outcome="invalid_token") == record["invalidTokens"]
    errors = delta("pushledger_deliveries_total", provider="apns") - delta(
        "pushledger_deliveries_total", provider="apns", outcome="delivered")
    assert errors == record["errors"]
    assert delta("pushledger_pushes_total", status="requested") >= 1
    assert delta("pushledger_pushes_total", status="done") >= 1
    assert delta("pushledger_provider_request_duration_seconds_count", provider="apns") >= 8
    # Requests are labelled by route pattern, never by raw path (ids would explode the series).
    assert delta("pushledger_http_requests_total", route="/1.1/push", method="POST", status="200") >= 1
    routes = {s.labels.get("route") for f in after for s in f.samples if s.name == "pushledger_http_requests_total"}
    assert not any(record["objectId"] in (route or "") for route in routes), routes
    assert samples(after, "pushledger_events_appended_total", type="PushBatchDelivered") >= 1
    for gauge in ("pushledger_pg_pool_connections_in_use", "pushledger_fanout_batches_in_flight"):
        assert any(s.name == gauge for f in after for s in f.samples), gauge

    # The provider errors are logged once per batch with the push id and the counts by reason.
    batch_lines = [l for l in log_lines(server) if l.get("push_id") == record["objectId"] and "batch" in l]
    assert len(batch_lines) == 1, batch_lines
    assert "6 delivered, 2 errors (Unregistered=2)" in batch_lines[0]["message"], batch_lines[0]


def test_unmatched_routes_are_labelled_unmatched(server, push_app):
    """docs/operations.md: requests no route takes are counted under route="unmatched", whatever the path."""
    before = scrape(server)
    for path in ("/1.1/no-such-route/" + secrets.token_hex(4), "/nothing-here"):
        r = requests.get(server.base_url + path, headers=master_headers(push_app), timeout=10)
        assert r.status_code == 404, r.text
    after = scrape(server)
    counted = samples(after, "pushledger_http_requests_total", route="unmatched", status="404") - samples(
        before, "pushledger_http_requests_total", route="unmatched", status="404")
    assert counted == 2
    routes = {s.labels.get("route") for f in after for s in f.samples if s.name == "pushledger_http_requests_total"}
    assert "NotFound" not in routes, routes


def log_lines(server):
    lines = []
    for line in server.log_path.read_text().splitlines():
        line = line.strip()
        if line:
            lines.append(json.loads(line))  # every line is JSON (LOG_FORMAT=json)
    return lines


def test_request_id_round_trips_into_log_and_audit(server, push_app):
    headers = master_headers(push_app)
    request_id = "req-" + secrets.token_hex(8)
    token = secrets.token_hex(32)
    r = requests.post(server.url("/installations"), timeout=10, headers=dict(headers, **{"X-Request-Id": request_id}),
                      data=json.dumps({"deviceType": "ios", "deviceToken": token}))
    assert r.status_code in (200, 201), r.text
    assert r.headers["X-Request-Id"] == request_id

    # Stored with the event the request caused.
    stored = server.sql("SELECT metadata->>'requestId' FROM events WHERE app_id = '%s' AND data->>'objectId' = '%s'"
                        % (push_app.app_id, r.json()["objectId"]))
    assert stored == request_id
    # And in the audit report.
    done = server.cli("report", "audit", "--app", push_app.app_id, "--format", "json")
    rows = json.loads(done.stdout)
    assert any(row.get("requestId") == request_id for row in rows), rows[-3:]

    # Logged once, as one JSON line with the request's facts.
    deadline = time.monotonic() + 5
    while True:
        mine = [l for l in log_lines(server) if l.get("request_id") == request_id]
        if mine or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(mine) == 1, mine
    line = mine[0]
    assert line["method"] == "POST" and line["route"] == "/1.1/installations" and line["status"] in ("200", "201")
    assert line["app_id"] == push_app.app_id
    # Milliseconds with one decimal; the request took longer than nothing and less than the wait above.
    assert re.fullmatch(r"\d+\.\d", line["duration_ms"]), line["duration_ms"]
    assert 0 < float(line["duration_ms"]) < 10_000
    for key in ("ts", "level", "label", "message"):
        assert key in line

    # Without a usable id the server makes one and still echoes it.
    generated = requests.get(server.base_url + "/health", headers={"X-Request-Id": "has space"}, timeout=10)
    assert generated.headers["X-Request-Id"] and generated.headers["X-Request-Id"] != "has space"
    # Errors carry it too.
    refused = requests.get(server.url("/installations/nope"), headers={"X-Request-Id": "refused-1"}, timeout=10)
    assert refused.status_code == 401 and refused.headers["X-Request-Id"] == "refused-1"


def test_no_secrets_in_logs(server, push_app):
    text = server.log_path.read_text()
    assert push_app.master_key not in text
    assert push_app.app_key not in text
    assert "eyJ" not in text  # no JWT (header of every ES256/RS256 token) was logged


def test_health_and_ready(server):
    health = requests.get(server.base_url + "/health", timeout=10)
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    ready = requests.get(server.base_url + "/ready", timeout=10)
    assert ready.status_code == 200, ready.text
    assert ready.json() == {"status": "ready", "checks": {"fanout": "ok", "migrations": "ok", "postgres": "ok"}}
