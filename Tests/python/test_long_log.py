"""The service's routine work stays out of the log's earlier days (issue 18: a partitioned log over a long
history). The log keeps a partition per day, all of them by default. A statement on `events` that cannot
be pruned to the days it needs while it is planned is planned over every partition, each opened and
locked, so its cost grows with every day the log has kept (docs/benchmarks.md, "Stream reads over a long
log"). Here another session holds the oldest and the latest of 90
earlier days locked in ACCESS EXCLUSIVE mode, which any such statement would wait for, while a client saves
installations, pushes to them, records an open, reads them back and asks for the billing and open-rate
reports through the running server. The audit report reads the log by the time each event carries, so it
starts a day before its range (earlier where `event_time_outliers` says so): it is asked for today while
the oldest day and the day before yesterday are locked.
"""

import json
import secrets
import subprocess
import time

import requests

EARLIER_DAYS = 90
TIMEOUT = 15  # seconds for each request; one that waits for the locked days fails the test


class DaysLocked:
    """A psql session holding `tables` in ACCESS EXCLUSIVE mode until `release()`."""

    def __init__(self, server, tables):
        self.server = server
        self.tables = tables
        self.proc = subprocess.Popen(["psql", server.database_url, "-X", "-q", "-v", "ON_ERROR_STOP=1"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.proc.stdin.write("BEGIN;\nLOCK TABLE %s IN ACCESS EXCLUSIVE MODE;\n" % ", ".join(tables))
        self.proc.stdin.flush()
        deadline = time.monotonic() + 10
        while self.held() < len(tables):
            assert self.proc.poll() is None, self.proc.stderr.read()
            assert time.monotonic() < deadline, "the days were not locked"
            time.sleep(0.05)

    def held(self):
        names = ", ".join("'%s'" % t for t in self.tables)
        return int(self.server.sql(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
            "WHERE c.relname IN (%s) AND l.mode = 'AccessExclusiveLock' AND l.granted" % names))

    def release(self):
        if self.proc.poll() is None:
            self.proc.communicate("ROLLBACK;\n", timeout=10)


def call(method, server, path, headers, body=None, expect=(200, 201)):
    r = requests.request(method, server.url(path), headers=headers, timeout=TIMEOUT,
                         data=None if body is None else json.dumps(body))
    assert r.status_code in expect, "%s %s: %s %s" % (method, path, r.status_code, r.text)
    return r.json()


def test_routine_requests_leave_the_earlier_days_alone(server, push_app, simulator):
    days = server.sql(
        "SELECT string_agg(pushledger_event_partition(d::date), ',' ORDER BY d) FROM generate_series("
        "current_date - %d, current_date - 1, interval '1 day') d" % EARLIER_DAYS).split(",")
    assert len(days) == EARLIER_DAYS
    master = {"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.master_key + ",master",
              "Content-Type": "application/json"}
    channel = "longlog_" + secrets.token_hex(4)
    tokens = [secrets.token_hex(32) for _ in range(3)]

    lock = DaysLocked(server, [days[0], days[-1]])
    try:
        # The control: a count of an app's events, which no time bound prunes, waits for the locked days.
        control = subprocess.run(
            ["psql", server.database_url, "-X", "-c", "SET lock_timeout = '300ms'",
             "-c", "SELECT count(*) FROM events WHERE app_id = '%s'" % push_app.app_id],
            capture_output=True, text=True, timeout=30)
        assert control.returncode != 0 and "lock timeout" in control.stderr, control

        ids = [call("POST", server, "/installations", master,
                    {"deviceType": "ios", "deviceToken": token, "channels": [channel]})["objectId"]
               for token in tokens]
        call("PUT", server, "/installations/" + ids[0], master, {"badge": 3})
        assert call("GET", server, "/installations/" + ids[0], master)["badge"] == 3
        where = json.dumps({"channels": channel})
        found = call("GET", server, "/installations?where=" + requests.utils.quote(where), master)["results"]
        assert sorted(r["objectId"] for r in found) == sorted(ids)

        push_id = call("POST", server, "/push", master, {"channels": [channel], "data": {"alert": "long log"}})[
            "objectId"]
        deadline = time.monotonic() + 30
        while (record := call("GET", server, "/notifications/" + push_id, master))["status"] != "done":
            assert time.monotonic() < deadline, "push not done: %r" % record
            time.sleep(0.2)
        assert (record["devices"], record["successes"], record["errors"]) == (3, 3, 0), record

        call("POST", server, "/events/AppOpened", master, {"objectId": ids[1], "notificationId": push_id})
        listed = call("GET", server, "/notifications?limit=1000", master)["results"]
        assert push_id in [r["objectId"] for r in listed]
        call("GET", server, "/reports/billing", master)
        call("GET", server, "/reports/opens", master)
    finally:
        lock.release()
    # Each device was sent the push once (the simulator's own count).
    for token in tokens:
        assert simulator.requests_for(token)["accepted"] == 1, token

    today = server.sql("SELECT (now() AT TIME ZONE coalesce((SELECT settings ->> 'timezone' FROM apps "
                       "WHERE app_id = '%s'), 'UTC'))::date" % push_app.app_id)
    lock = DaysLocked(server, [days[0], days[-2]])
    try:
        audit = call("GET", server, "/reports/audit?from=%s&to=%s" % (today, today), master)
    finally:
        lock.release()
    assert ["PushRequested", "push:" + push_id, "done"] in [[r["action"], r["target"], r["result"]] for r in audit]
