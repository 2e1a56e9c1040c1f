"""The schema stays distributable by app (issue 18 item 5, docs/scaling.md): every statement the code can send
(collected from the sources by sql_sources.py) is EXPLAINed against a migrated database as a generic plan,
and every scan of a tenant table (a table with an `app_id` column) must be constrained by `app_id`: in its
own index condition or filter, or in the join condition above it (a join on app_id is co-located under
Citus). The exceptions are listed below, each with its reason; docs/scaling.md lists them too.
"""

import json
import os
import re
import secrets
import subprocess

import pytest

from conftest import database_url, psql
from sql_sources import collect

# (file under Sources/, table, a piece of the statement) -> why that statement may read across apps.
ACROSS_APPS = {
    ("Ledger/EventStore/EventStore.swift", "events", "ORDER BY transaction_id, position"):
        "the global order: projectors and rebuild consume every app's events by (transaction id, position); "
        "under Citus these become per-app positions (docs/scaling.md)",
    ("Ledger/EventStore/EventStore.swift", "events", "SELECT count(*) AS n FROM events"):
        "the log's size, for tests and rebuild's progress",
    ("Ledger/Rebuild/Rebuilder.swift", "events", "AS paged FROM events"):
        "rebuild replays the whole log (a maintenance command, not a request)",
    ("Ledger/Rebuild/Rebuilder.swift", "events", "ORDER BY transaction_id DESC, position DESC LIMIT 1"):
        "rebuild checkpoints asynchronous projectors at the newest event of the global order",
    ("Ledger/Projections/ProjectorRunner.swift", "events", "FROM events"):
        "an asynchronous projector's start: the newest event of the global order",
    ("Ledger/Retention/RetentionJob.swift", "apps", "FROM apps ORDER BY app_id"):
        "the retention job visits every app; `apps` is a reference table",
    ("Ledger/Apps/AppDirectory.swift", "apps", "FROM apps ORDER BY created_at"):
        "`pushledger app list` lists every app; `apps` is a reference table",
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_jobs", "send_at <= "):
        "the fan-out's work queue: any process takes due jobs of any app (a multi-shard query under Citus)",
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_batches", "SKIP LOCKED"):
        "the fan-out's work queue: any sender leases pending batches of any app",
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_jobs", "count(*)"):
        "the backlog gauges of /metrics are summed over every app",
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_batches", "count(*)"):
        "the backlog gauges of /metrics are summed over every app",
    ("Ledger/Channel/ChannelMessages.swift", "channel_messages", "expire_at <= "):
        "the own channel's expiry sweep over every app's pending messages",
    ("Ledger/Objects/FieldIndexes.swift", "class_fields", "SELECT DISTINCT field, type FROM class_fields"):
        "index maintenance: the objects' field indexes are per field name, shared by every app",
}

# Statements that are not sent as written (their SQL is assembled by plain string interpolation).
NOT_EXPLAINABLE = {
    ("Ledger/Rebuild/RebuildTarget.swift", "LOCK TABLE"): "rebuild replaces each whole table under an exclusive lock",
    ("Ledger/Rebuild/Rebuilder.swift", "EXCEPT ALL"): "rebuild --verify compares each whole table",
    # The summaries' temporary tables exist only in the rebuild's summarising transaction; the statements that
    # make them from the log are bound to the apps (`app_id = ANY(...)`) and checked as fragments.
    ("Ledger/Opens/PushStatsProjection+Summary.swift", "FROM rebuild_push_opens GROUP BY"):
        "reads rebuild's temporary summary of the push opens",
    ("Ledger/Opens/PushStatsProjection+Summary.swift", "FROM rebuild_open_days"):
        "reads rebuild's temporary summary of the push opens per local day",
    ("Ledger/Push/NotificationProjection+Summary.swift", "FROM rebuild_notification_opens"):
        "reads rebuild's temporary count of the push opens per push",
    # Spliced into the push projections' statements for runs of push events, which are checked whole.
    ("Ledger/Push/PushCounterRun.swift", "FROM e GROUP BY p"): "the per-push sums of a run's rows (no table)",
}


def tenant_tables(url):
    rows = psql(url, """
        SELECT c.table_name FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = 'public' AND c.column_name = 'app_id' AND t.table_type <> 'VIEW'
        """)
    # Day partitions are the events table.
    return {name for name in rows.split() if not re.fullmatch(r"events_(\d{8}|default)", name)}


class Unexplainable(Exception):
    pass


def generic_plan(url, statement):
    """The statement's generic plan (parameters stay $n), as EXPLAIN (FORMAT JSON) prints it."""
    types = []
    while True:
        declared = "(%s)" % ", ".join(types) if types else ""
        nulls = "(%s)" % ", ".join(["NULL"] * statement.params) if statement.params else ""
        script = "SET plan_cache_mode = force_generic_plan;\nPREPARE s%s AS %s;\nEXPLAIN (FORMAT JSON) EXECUTE s%s;\n" % (
            declared, statement.sql.strip().rstrip(";"), nulls)
        done = subprocess.run(["psql", url, "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1"],
                              input=script, capture_output=True, text=True, timeout=30)
        if done.returncode == 0:
            return json.loads(done.stdout)[0]["Plan"]
        unknown = re.search(r"could not determine data type of parameter \$(\d+)", done.stderr)
        if not unknown or len(types) >= statement.params:
            raise Unexplainable("%s cannot be explained: %s\n%s" % (statement.site, done.stderr.strip(), statement.sql))
        k = int(unknown.group(1))
        types = (types + ["unknown"] * k)[: k - 1] + ["text"]


CONDITIONS = ("Index Cond", "Recheck Cond", "Filter", "TID Cond")
JOINS = ("Hash Cond", "Merge Cond", "Join Filter")


def unconstrained_scans(plan, tenant, above=""):
    """Tenant tables scanned in `plan` with no app_id in the scan's conditions or the joins above it."""
    found = set()
    own = " ".join(plan.get(k, "") for k in CONDITIONS)
    own += " ".join(child.get("Index Cond", "") for child in plan.get("Plans", [])
                    if child.get("Node Type") == "Bitmap Index Scan")
    relation = plan.get("Relation Name")
    if relation and plan.get("Node Type") != "ModifyTable":
        table = "events" if re.fullmatch(r"events_(\d{8}|default)", relation) else relation
        if table in tenant and "app_id" not in own + above:
            found.add(table)
    joins = above + " " + " ".join(plan.get(k, "") for k in JOINS)
    for child in plan.get("Plans", []):
        found |= unconstrained_scans(child, tenant, joins)
    return found


def fragment_gaps(statement, tenant):
    """A piece of SQL spliced into other statements: every tenant table it reads must come with app_id."""
    return {t for t in statement.tables() & tenant if "app_id" not in statement.sql}


def allowed(statement, table):
    return any(f == statement.file and t == table and piece in statement.sql for (f, t, piece) in ACROSS_APPS)


@pytest.fixture(scope="module")
def migrated():
    base = os.environ.get("PUSHLEDGER_TEST_PG")
    if not base:
        pytest.fail("PUSHLEDGER_TEST_PG is not set (base libpq URI of a throw-away PostgreSQL cluster)")
    name = "t_explain_" + secrets.token_hex(4)
    psql(database_url(base, "postgres"), "CREATE DATABASE %s" % name)
    url = database_url(base, name)
    binary = os.environ.get("PUSHLEDGER_BIN", str(collect.__globals__["REPO"] / ".build/debug/pushledger"))
    subprocess.run([binary, "migrate"], env=dict(os.environ, DATABASE_URL=url), check=True,
                   capture_output=True, timeout=120)
    return url


def test_collects_the_statements_of_every_store():
    statements = collect()
    files = {s.file for s in statements}
    # A sample of the places queries live; a collector that silently lost them would fail here.
    for expected in ["Ledger/EventStore/LedgerTransaction.swift", "Ledger/Installations/InstallationCommands.swift",
                     "Ledger/Installations/InstallationQueries.swift", "Ledger/Query/PGPool+ListQuery.swift",
                     "Ledger/Push/PushLifecycleInterpreter+Work.swift", "Ledger/Projections/InstallationProjection.swift",
                     "Reports/Definitions/billing.sql", "Ledger/Objects/ObjectCommands.swift"]:
        assert expected in files
    assert len(statements) > 120
    assert not [s.site for s in statements if s.problems], "interpolations without SQL text: see RAW_TEXT"


def test_every_tenant_query_is_constrained_by_app_id(migrated):
    tenant = tenant_tables(migrated)
    assert {"events", "installations", "notifications", "push_jobs", "objects"} <= tenant
    gaps, used = [], set()
    for statement in collect():
        if any(f == statement.file and piece in statement.sql for (f, piece) in NOT_EXPLAINABLE):
            continue
        if statement.is_statement():
            try:
                missing = unconstrained_scans(generic_plan(migrated, statement), tenant)
            except Unexplainable as error:
                gaps.append(str(error))
                continue
        else:
            missing = fragment_gaps(statement, tenant)
        for table in sorted(missing):
            if allowed(statement, table):
                used.update(k for k in ACROSS_APPS if k[0] == statement.file and k[1] == table)
            else:
                gaps.append("%s reads %s without app_id:\n%s" % (statement.site, table, statement.sql.strip()))
    assert not gaps, "\n\n".join(gaps)
    assert set(ACROSS_APPS) <= used, "allow-list entries no statement needs: %s" % (set(ACROSS_APPS) - used)


def test_the_check_catches_a_query_without_app_id(migrated):
    """The detector itself: a lookup by object id alone, and a join on something else than app_id."""
    from sql_sources import Statement
    tenant = tenant_tables(migrated)
    alone = Statement("x.swift", 1, "SELECT data FROM installations WHERE object_id = $1", 1, [])
    assert unconstrained_scans(generic_plan(migrated, alone), tenant) == {"installations"}
    joined = Statement("x.swift", 1, "SELECT n.status FROM notifications n JOIN push_jobs j ON j.push_id = "
                       "n.object_id WHERE n.app_id = $1", 1, [])
    assert unconstrained_scans(generic_plan(migrated, joined), tenant) == {"push_jobs"}
    scoped = Statement("x.swift", 1, "SELECT n.status FROM notifications n JOIN push_jobs j ON j.app_id = "
                       "n.app_id AND j.push_id = n.object_id WHERE n.app_id = $1", 1, [])
    assert unconstrained_scans(generic_plan(migrated, scoped), tenant) == set()
