"""What an operator of a distributed PushLedger relies on beyond the SDK suites (which scripts/test-citus runs on
the same cluster): the billing report and `replay` over distributed rows, an existing database distributed with
its history, and a migration applied after the database was distributed."""

import contextlib
import datetime
import gzip
import json
import os
import pathlib
import secrets
import shutil
import subprocess
import time

import requests

from conftest import create_database, database_url, drop_database, psql

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "ledger-2026-12-03.sql.gz"
MIGRATIONS = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "Ledger" / "Migrations"
# The fixture's events by kind, as test_fixture_database.py counted them with psql when it was made.
FIXTURE_EVENTS = 5457


def cli(binary, url, *args, env=None, timeout=300):
    done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, DATABASE_URL=url, **(env or {})))
    assert done.returncode == 0, "pushledger %s: %s%s" % (args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


@contextlib.contextmanager
def citus_database(server):
    """A database of its own on the Citus cluster (every node, workers registered), dropped afterwards."""
    name = "pushledger_citus_" + secrets.token_hex(4)
    create_database(database_url(server.database_url, ""), name)
    try:
        yield database_url(server.database_url, name)
    finally:
        drop_database(database_url(server.database_url, ""), name)


def distributed_tables(url):
    return set(psql(url, "SELECT logicalrelid::text FROM pg_dist_partition").split())


def test_billing_and_replay_over_the_distributed_rows(server, push_app, simulator):
    headers = push_app.master_headers()
    channel = "bill-" + secrets.token_hex(4)
    tokens = [secrets.token_hex(32) for _ in range(7)]
    ids = []
    for token in tokens:
        r = requests.post(server.url("/installations"), json={"deviceType": "ios", "deviceToken": token,
                                                               "channels": [channel]}, headers=headers, timeout=10)
        assert r.status_code == 201, r.text
        ids.append(r.json()["objectId"])

    def billed():
        """Calls, pushes (devices) and successes over the report's days (SPEC §9's rows)."""
        rows = json.loads(server.cli("report", "billing", "--app", push_app.app_id, "--format", "json").stdout)
        return {k: sum(row[k] for row in rows) for k in ("calls", "pushes", "successes")}

    before = billed()
    r = requests.post(server.url("/push"), json={"channels": [channel], "data": {"alert": "billed"}},
                      headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    push_id = r.json()["objectId"]
    deadline = time.monotonic() + 60
    while True:
        record = requests.get(server.url("/notifications/" + push_id), headers=headers, timeout=10).json()
        if record["status"] == "done" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (record["status"], record["devices"], record["successes"]) == ("done", 7, 7), record
    # The simulator took each device once.
    assert [simulator.requests_for(t)["accepted"] for t in tokens] == [1] * 7
    # The billing report grew by the push: its counters are written on the app's worker.
    after = billed()
    assert {k: after[k] - before[k] for k in after} == {"calls": 1, "pushes": 7, "successes": 7}, (before, after)
    # Replay finds the audience from the log alone.
    at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    replayed = json.loads(server.cli("replay", "--app", push_app.app_id, "--at", at, "--where",
                                     json.dumps({"channels": channel}), "--format", "json").stdout)
    assert sorted(replayed) == sorted(ids), replayed


def test_an_existing_database_is_distributed_with_its_history(server):
    with citus_database(server) as url:
        done = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-q"],
                              input=gzip.decompress(FIXTURE.read_bytes()), capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        cli(server.binary, url, "migrate")
        report = json.loads(cli(server.binary, url, "distribute", "--shard-count", "4").strip().splitlines()[-1])
        assert "events" in report["distributed"] and report["reference"] == ["apps", "channel_heartbeats"], report
        assert {"events", "installations", "push_batches", "apps"} <= distributed_tables(url)
        # Every event moved to the workers, none left behind on the coordinator's own table.
        assert int(psql(url, "SELECT count(*) FROM events")) == FIXTURE_EVENTS
        assert int(psql(url, "SELECT count(*) FROM ONLY events")) == 0
        out = cli(server.binary, url, "rebuild", "--verify")
        assert "verified: %d events rebuilt into projections identical to the live tables" % FIXTURE_EVENTS in out, out
        # Run again, distribute finds nothing left to do.
        again = json.loads(cli(server.binary, url, "distribute").strip().splitlines()[-1])
        assert again == {"distributed": [], "reference": []}, again


def test_a_migration_after_distribution_is_distributed_by_migrate(server, tmp_path):
    with citus_database(server) as url:
        cli(server.binary, url, "migrate")
        cli(server.binary, url, "distribute", "--shard-count", "4")
        later = tmp_path / "migrations"
        shutil.copytree(MIGRATIONS, later)
        (later / "9999_citus_probe.sql").write_text(
            "CREATE TABLE citus_probe (app_id text NOT NULL, k int NOT NULL, PRIMARY KEY (app_id, k));\n"
            "CREATE INDEX citus_probe_k ON citus_probe (k);\n"
            "ALTER TABLE installations ADD COLUMN citus_probe int;\n")
        out = cli(server.binary, url, "migrate", env={"PUSHLEDGER_SQL_DIR": str(later)})
        assert "9999" in out, out
        assert "citus_probe" in distributed_tables(url)
        colocated = psql(url, "SELECT count(DISTINCT colocationid) FROM pg_dist_partition "
                              "WHERE logicalrelid IN ('events'::regclass, 'citus_probe'::regclass)")
        assert colocated == "1"
        # The change to a distributed table reached its shards: a write names the new column.
        psql(url, "INSERT INTO citus_probe VALUES ('a', 1)")
        assert psql(url, "SELECT count(*) FROM installations WHERE citus_probe IS NULL") == "0"


def test_day_partitions_are_made_and_dropped_on_the_workers(server):
    with citus_database(server) as url:
        cli(server.binary, url, "migrate")
        cli(server.binary, url, "distribute", "--shard-count", "4")
        # A day ahead that has no partition yet: made as the retention job makes them, and distributed with the log.
        made = psql(url, "SELECT pushledger_event_partition(current_date + 40)")
        assert made in distributed_tables(url), made
        psql(url, "INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at) VALUES "
                  "('p', 'ahead', 1, 'DeviceDisconnected', '{\"objectId\":\"x\",\"session\":\"s\"}', "
                  "'{}', current_date + 40)")
        assert psql(url, "SELECT count(*) FROM %s" % made) == "1"
        # A day long past, dropped by the log-retention step.
        old = psql(url, "SELECT pushledger_event_partition(current_date - 400)")
        psql(url, "INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at) VALUES "
                  "('p', 'old', 1, 'DeviceDisconnected', '{\"objectId\":\"x\",\"session\":\"s\"}', "
                  "'{}', current_date - 400)")
        done = json.loads(cli(server.binary, url, "retention", "run", "--log-retention-days", "365")
                          .strip().splitlines()[-1])
        assert done["droppedLogPartitions"] >= 1, done
        assert old not in distributed_tables(url)
        assert psql(url, "SELECT count(*) FROM events WHERE stream = 'old'") == "0"
        assert psql(url, "SELECT count(*) FROM events WHERE stream = 'ahead'") == "1"
