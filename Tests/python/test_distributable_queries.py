"""The schema stays distributable by app (docs/scaling.md): every statement the code can send (collected from
the sources by sql_sources.py, fragments spelled out as the code writes them) is EXPLAINed against a migrated
database as a generic plan, and
- every scan of a tenant table (a table with an `app_id` column) must be constrained by `app_id`: in its own
  index condition or filter, or in the join condition above it (a join on app_id is co-located under Citus);
  the exceptions are listed below, each with its reason; docs/scaling.md lists them too;
- no statement may be of a kind Citus refuses, whatever the allow-list says (`citus_refusals`): a sub-select
  inside INSERT ... VALUES, a row lock (FOR UPDATE/SHARE) over rows of more than one app, a volatile function
  (or a STABLE one on a column) in an UPDATE or DELETE of a tenant table, a recursive CTE that scans a tenant
  table without naming one app. Each was met on a real Citus cluster (issue 47); scripts/test-citus runs there.
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
    ("Ledger/Rebuild/Rebuilder+PerApp.swift", "events", "SELECT count(*) AS n FROM events"):
        "the per-app rebuild's progress: the log's size",
    ("Ledger/EventStore/EventStore+LogScan.swift", "stream_heads", "SELECT DISTINCT app_id FROM stream_heads"):
        "rebuild visits every app that has a stream",
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
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_batches", "GROUP BY b.app_id"):
        "the fan-out's work queue: a sender looks for the apps with batches to lease (the lease names the app)",
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_jobs", "count(*)"):
        "the backlog gauges of /metrics are summed over every app",
    ("Ledger/Push/PushLifecycleInterpreter+Work.swift", "push_batches", "count(*)"):
        "the backlog gauges of /metrics are summed over every app",
    ("Ledger/Channel/ChannelMessages.swift", "channel_messages", "expire_at <= "):
        "the own channel's expiry sweep over every app's pending messages",
    ("Ledger/Objects/FieldIndexes.swift", "class_fields", "SELECT DISTINCT field, type FROM class_fields"):
        "index maintenance: the objects' field indexes are per field name, shared by every app",
}

# Statements that are not sent as written (their SQL is assembled by plain string interpolation), or that read
# Citus' own catalogs, which one PostgreSQL does not have.
NOT_EXPLAINABLE = {
    ("Ledger/Distribution/CitusLayout.swift", "pg_dist_"): "asks Citus where the tables are distributed",
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


def generic_plan(url, statement, verbose=False):
    """The statement's generic plan (parameters stay $n), as EXPLAIN (FORMAT JSON) prints it."""
    types = []
    options = "VERBOSE, FORMAT JSON" if verbose else "FORMAT JSON"
    while True:
        declared = "(%s)" % ", ".join(types) if types else ""
        nulls = "(%s)" % ", ".join(["NULL"] * statement.params) if statement.params else ""
        script = "SET plan_cache_mode = force_generic_plan;\nPREPARE s%s AS %s;\nEXPLAIN (%s) EXECUTE s%s;\n" % (
            declared, statement.sql.strip().rstrip(";"), options, nulls)
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


def nodes(plan):
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def expressions(plan):
    """Every expression EXPLAIN VERBOSE shows in the plan, as text."""
    for node in nodes(plan):
        for key, value in node.items():
            if key in ("Output",) and isinstance(value, list):
                yield from value
            elif key in CONDITIONS + JOINS + ("Function Call", "One-Time Filter") and isinstance(value, str):
                yield value


COLUMN = re.compile(r"\b[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*\b")
CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\(([^()]*)")
# A cast Citus treats as a STABLE function: text (or a column) to a time, which reads the session's time zone.
STABLE_CAST = re.compile(r"\(([^()]*)\)::(timestamp with time zone|timestamp without time zone|date)\b")


def citus_refusals(url, statement, tenant, volatility):
    """Why Citus would refuse the statement (issue 47's findings), on plain PostgreSQL: an empty list if it would
    not. `volatility`: function name -> the set of its overloads' volatilities ('i', 's', 'v')."""
    sql = statement.sql
    reasons = []
    # A sub-select inside INSERT ... VALUES (the local day's time zone once was one).
    for values in re.finditer(r"\bINSERT\s+INTO\b[^;]*?\bVALUES\s*\(", sql, re.I | re.S):
        depth, i = 1, values.end()
        while depth and i < len(sql):
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            i += 1
        if re.search(r"\bSELECT\b", sql[values.end():i], re.I):
            reasons.append("a sub-select inside INSERT ... VALUES")
    plan = generic_plan(url, statement, verbose=True)

    def scans_naming_one_app():
        """Tenant tables scanned without `app_id = <a value>` in their own conditions or the joins above (a join on
        app_id alone spans apps; the planner carries a value the join names into the joined scan's condition)."""
        missing = set()

        def walk(node, above):
            own = " ".join(node.get(k, "") for k in CONDITIONS)
            relation = node.get("Relation Name")
            if relation and node.get("Node Type") != "ModifyTable":
                table = "events" if re.fullmatch(r"events_(\d{8}|default)", relation) else relation
                if table in tenant and not re.search(r"\bapp_id = (\$\d+|'[^']*')", own + above):
                    missing.add(table)
            joins = above + " " + " ".join(node.get(k, "") for k in JOINS)
            for child in node.get("Plans", []):
                walk(child, joins)

        walk(plan, "")
        return missing

    if any(n.get("Node Type") == "LockRows" for n in nodes(plan)) and scans_naming_one_app():
        reasons.append("FOR UPDATE/SHARE over rows of more than one app: %s" % sorted(scans_naming_one_app()))
    if re.search(r"\bWITH\s+RECURSIVE\b", sql, re.I) and scans_naming_one_app():
        reasons.append("a recursive CTE over %s without naming one app" % sorted(scans_naming_one_app()))
    modified = {n.get("Relation Name") for n in nodes(plan)
                if n.get("Node Type") == "ModifyTable" and n.get("Operation") in ("Update", "Delete")}
    if modified & tenant:
        for text in expressions(plan):
            for name, arguments in CALL.findall(text):
                kinds = volatility.get(name, set())
                if "v" in kinds:
                    reasons.append("the volatile %s() in an UPDATE/DELETE of %s" % (name, sorted(modified & tenant)))
                elif kinds == {"s"} and COLUMN.search(arguments):
                    reasons.append("the STABLE %s() on a column in an UPDATE/DELETE: %s" % (name, text))
            for operand, target in STABLE_CAST.findall(text):
                if COLUMN.search(operand) and not re.search(r"::(timestamp|date)", operand):
                    reasons.append("a cast of a column to %s (STABLE) in an UPDATE/DELETE: %s" % (target, text))
    return sorted(set(reasons))


def volatilities(url):
    out = {}
    for row in psql(url, "SELECT proname || '=' || string_agg(DISTINCT provolatile::text, '') FROM pg_proc "
                         "GROUP BY proname").splitlines():
        name, kinds = row.split("=", 1)
        out[name] = set(kinds)
    return out


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


def test_no_statement_is_of_a_kind_citus_refuses(migrated):
    tenant = tenant_tables(migrated)
    volatility = volatilities(migrated)
    refused = []
    for statement in collect():
        if not statement.is_statement():
            continue
        if any(f == statement.file and piece in statement.sql for (f, piece) in NOT_EXPLAINABLE):
            continue
        reasons = citus_refusals(migrated, statement, tenant, volatility)
        if reasons:
            refused.append("%s: %s\n%s" % (statement.site, "; ".join(reasons), statement.sql.strip()))
    assert not refused, "\n\n".join(refused)


# What the code sent before issue 47, each refused by Citus 13 on a real cluster: a check that lets one of them
# through has lost its teeth.
REFUSED_BEFORE = {
    "a sub-select inside INSERT ... VALUES": (
        "INSERT INTO public.daily_usage (app_id, day, devices) VALUES ($1, (($2::timestamptz AT TIME ZONE "
        "coalesce((SELECT settings ->> 'timezone' FROM public.apps WHERE app_id = $3), 'UTC')))::date, $4) "
        "ON CONFLICT (app_id, day) DO UPDATE SET devices = daily_usage.devices + $5", 5),
    "FOR UPDATE/SHARE over rows of more than one app": (
        "UPDATE push_batches b SET claimed_by = $1, claimed_until = $2::timestamptz, attempts = b.attempts + 1 "
        "FROM (SELECT b2.app_id, b2.push_id, b2.batch_no FROM push_batches b2 JOIN push_jobs j2 "
        "ON j2.app_id = b2.app_id AND j2.push_id = b2.push_id WHERE b2.state = 'pending' "
        "AND (b2.claimed_until IS NULL OR b2.claimed_until < $3::timestamptz) AND j2.state IN ('targeting', 'sending') "
        "ORDER BY b2.created_at, b2.batch_no LIMIT 1 FOR UPDATE OF b2 SKIP LOCKED) c, push_jobs j "
        "WHERE b.app_id = c.app_id AND b.push_id = c.push_id AND b.batch_no = c.batch_no "
        "AND j.app_id = b.app_id AND j.push_id = b.push_id "
        "RETURNING b.app_id, b.push_id, b.batch_no, b.targets, b.attempts, j.request, b.recorded::text", 3),
    "the volatile clock_timestamp()": (
        "UPDATE push_jobs SET flow_next_at = greatest(flow_next_at, clock_timestamp()) + make_interval(secs => $1) "
        "WHERE app_id = $2 AND push_id = $3 RETURNING flow_next_at - make_interval(secs => $4) AS starts", 4),
    "a cast of a column to timestamp with time zone": (
        "UPDATE public.installations i SET data = CASE WHEN a.badge IS NULL THEN i.data "
        "ELSE jsonb_set(i.data, '{badge}', a.badge) END, updated_at = coalesce(a.updated_at, i.updated_at), "
        "version = a.version FROM (SELECT o, (array_agg(b::jsonb ORDER BY ord DESC) FILTER "
        "(WHERE b::jsonb <> 'null'::jsonb))[1] AS badge, (array_agg(u::timestamptz ORDER BY ord DESC) FILTER "
        "(WHERE u <> ''))[1] AS updated_at, (array_agg(v::int ORDER BY ord DESC))[1] AS version "
        "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS e(o, b, u, v, ord) "
        "GROUP BY o) a WHERE i.app_id = $5 AND i.object_id = a.o", 5),
    "a recursive CTE": (
        "WITH RECURSIVE app AS (SELECT min(app_id) AS app_id FROM events UNION ALL "
        "SELECT (SELECT min(e.app_id) FROM events e WHERE e.app_id > app.app_id) FROM app "
        "WHERE app.app_id IS NOT NULL) SELECT app_id FROM app WHERE app_id IS NOT NULL", 0),
}


@pytest.mark.parametrize("kind", sorted(REFUSED_BEFORE))
def test_the_check_catches_what_citus_refused(migrated, kind):
    """A deliberate regression per kind: the statement the code sent before, which Citus refused."""
    from sql_sources import Statement
    sql, params = REFUSED_BEFORE[kind]
    reasons = citus_refusals(migrated, Statement("regression.swift", 1, sql, params, []), tenant_tables(migrated),
                             volatilities(migrated))
    assert any(reason.startswith(kind) for reason in reasons), reasons


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
