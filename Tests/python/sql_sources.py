"""Every SQL statement PushLedger's code can send, collected from its sources (test_distributable_queries.py).

Swift string literals are read with a small scanner (interpolations may hold strings and parentheses), and
each literal that reads as SQL naming a table is turned back into the statement PGQuery would send: a
`\\(value)` becomes the next `$n`, `\\(unsafeRaw: name)` the text that name holds (a `let name = "…"` of the
same file, or RAW_TEXT below), and a `\\(fragment)` whose value is itself SQL the text in FRAGMENTS. The
report definitions (`Sources/Reports/Definitions/*.sql`) are statements already. Nothing is sampled at run
time, so a query no test exercises is collected all the same.
"""

import dataclasses
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCES = REPO / "Sources"

# `\(unsafeRaw: …)` whose text is not a `let` literal of its file: what the code passes there.
RAW_TEXT = {
    "schema": "public",
    "column": "successes",  # UsageProjection and PushStatsProjection add to one counter column at a time
    "extraColumns": "",
    "scratch.installations": "public.installations",  # replay's scratch copy has the same shape
    "state.scratch.installations": "public.installations",
    "scratch.apps": "public.apps",
    "scratch.objects": "public.objects",
    "String(pageSize)": "2000",  # rebuild's FETCH (a count cannot be a parameter)
    "requestColumn": "request",  # PushLifecycleInterpreter.load, when asked for the stored request
    "sendableStates": "'targeting', 'sending'",  # the interpreter's claim: JobState.sendable as literals
    # PushCounterRun.addedCounts(current, added): counts of two jsonb objects summed key by key.
    'PushCounterRun.addedCounts("vendor_successes", "x.v")':
        "coalesce((SELECT jsonb_object_agg(k, coalesce((vendor_successes ->> k)::bigint, 0) "
        "+ coalesce((x.v ->> k)::bigint, 0)) FROM jsonb_object_keys(vendor_successes || x.v) AS k), '{}')",
    'PushCounterRun.addedCounts("s.vendor_successes", "c.vendors")':
        "coalesce((SELECT jsonb_object_agg(k, coalesce((s.vendor_successes ->> k)::bigint, 0) "
        "+ coalesce((c.vendors ->> k)::bigint, 0)) FROM jsonb_object_keys(s.vendor_successes || c.vendors) AS k), '{}')",
}

# Interpolated SQL fragments (PGQuery values, not parameters), as the code builds them, by expression or by
# (file, expression) where one name means different things in different files. `$` is a parameter.
FRAGMENTS = {
    # ObjectProjection's fold: the object events that name their class and object.
    ("Ledger/Projections/ObjectProjection+Fold.swift", "named"):
        "app_id = ANY($::text[]) AND type = ANY($::text[]) AND jsonb_typeof(data -> 'className') = 'string' "
        "AND jsonb_typeof(data -> 'objectId') = 'string'",
    # PushTargeting.targetCondition (targeting, replay), the compiled `where` inside it left out.
    ("Ledger/Push/PushTargeting.swift", "condition"): "app_id = $ AND valid AND updated_at > $::timestamptz AND (TRUE)",
    ("Ledger/Replay/Replayer.swift", "condition"): "app_id = $ AND valid AND updated_at > $::timestamptz AND (TRUE)",
    ("Ledger/Push/PushTargeting+Preview.swift", "condition"):
        "app_id = $ AND valid AND updated_at > $::timestamptz AND (TRUE)",
    # APNsTeamCheck: the push's audience (targetCondition) and whether a device's own topic tells its team.
    ("Ledger/Push/APNsTeamCheck.swift", "condition"):
        "app_id = $ AND valid AND updated_at > $::timestamptz AND (TRUE)",
    "topicTellsApart": "coalesce(data ->> 'apnsTopic', '') = ANY($::text[])",
    # A listing: one of the callers' scopes (each checked on its own as a fragment) and a compiled `where`.
    ("Ledger/Query/PGPool+ListQuery.swift", "base"): "FROM installations WHERE app_id = $ AND (TRUE)",
    ("Ledger/Query/PGPool+ListQuery.swift", "order"): "object_id",
    "staleInstallations(app, before: staleBefore)": "app_id = $ AND updated_at < $::timestamptz",
    "staleInstallations(app, before: cutoff)": "app_id = $ AND updated_at < $::timestamptz",
    "finishedPushRecords(app, before: pushesBefore)": "app_id = $ AND created_at < $::timestamptz AND status <> ALL($::text[])",
    "finishedPushRecords(app, before: cutoff)": "app_id = $ AND created_at < $::timestamptz AND status <> ALL($::text[])",
    "unclosedDays(app, now: now, local: local)": "app_id = $ AND NOT closed AND day < ${local.day}",
    "bound": "AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())",
    "span.condition": "recorded_at BETWEEN $::timestamptz AND $::timestamptz",  # StreamSpan: a stream's days
    "condition": "TRUE",  # elsewhere: a compiled `where` over the row, beside the statement's own app_id
    "platformFilter": "AND device_type = ANY($::text[])",
    "streamFilter": "",
    # PushStatsProjection and UsageProjection name the local day of the event's time once, as `day`.
    ("Ledger/Opens/PushStatsProjection.swift", "day"): "${local.day}",
    ("Ledger/Usage/UsageProjection.swift", "day"): "${local.day}",
    "forgiveToken(created.fields, at: created.updatedAt, appId: event.appId, schema: schema)": "DELETE FROM public.invalid_tokens "
    "WHERE app_id = $ AND token = ANY($::text[]) AND invalid_since < $::timestamptz",
    "forgiveToken(updated.set, at: updated.updatedAt, appId: event.appId, schema: schema)": "DELETE FROM public.invalid_tokens "
    "WHERE app_id = $ AND token = ANY($::text[]) AND invalid_since < $::timestamptz",
    "PushLifecycleInterpreter.workFinished": "TRUE",
    # PushCounterRun.rows: a run of push events as rows (no table).
    "run.rows": "SELECT p, nullif(at, '')::timestamptz AS at, devices, successes, ios, android, windows, errors, "
    "invalid, queued, reasons, vendors, ord FROM unnest($::text[], $::text[], $::bigint[], $::bigint[], $::bigint[], "
    "$::bigint[], $::bigint[], $::bigint[], $::bigint[], $::bigint[], $::jsonb[], $::jsonb[]) WITH ORDINALITY AS "
    "e(p, at, devices, successes, ios, android, windows, errors, invalid, queued, reasons, vendors, ord)",
}

# `LocalTime`'s methods, whose SQL is read from Ledger/Usage/LocalTime.swift itself (`${local.day}` in a
# fragment above): a call's text is the method's literal with its argument (a parameter, or the column it names).
LOCAL_TIME = re.compile(r"^local\.(day|minute)\((.*)\)$")

SQL_START = re.compile(r"^(?:\s|--[^\n]*\n)*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", re.I)
SQL_WORDS = re.compile(r"\b(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM)\b", re.I)
TABLE_REF = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+(?:ONLY\s+)?(?:public\.)?([a-z_][a-z0-9_]*)", re.I)


@dataclasses.dataclass
class Statement:
    file: str  # relative to Sources/
    line: int
    sql: str  # with $1…$n
    params: int
    problems: list  # interpolations that could not be turned back into SQL

    @property
    def site(self):
        return "%s:%d" % (self.file, self.line)

    def tables(self):
        return {m.group(1).lower() for m in TABLE_REF.finditer(self.sql)}

    def is_statement(self):
        return bool(SQL_START.match(self.sql))


def _skip_string(text, i):
    """Index just past the Swift string literal starting at text[i] (a `"` or `\"\"\"`)."""
    return _read_string(text, i)[1]


def _read_string(text, i):
    """(parts, end): the literal at text[i] as a list of str and ("interp", expression) items."""
    triple = text.startswith('"""', i)
    j = i + (3 if triple else 1)
    parts, buf = [], []
    while j < len(text):
        if triple and text.startswith('"""', j):
            parts.append("".join(buf))
            return parts, j + 3
        c = text[j]
        if not triple and c == '"':
            parts.append("".join(buf))
            return parts, j + 1
        if c == "\\" and text.startswith("\\(", j):
            parts.append("".join(buf))
            buf = []
            k, depth = j + 2, 1
            while depth:
                if text[k] == '"':
                    k = _skip_string(text, k)
                    continue
                depth += {"(": 1, ")": -1}.get(text[k], 0)
                k += 1
            parts.append(("interp", text[j + 2 : k - 1].strip()))
            j = k
            continue
        if c == "\\":
            buf.append(text[j : j + 2])
            j += 2
            continue
        buf.append(c)
        j += 1
    raise ValueError("unterminated string literal")


def _literals(text):
    """(line, parts) of every string literal in a Swift file, comments skipped."""
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i) + 2
        elif text[i] == '"':
            parts, end = _read_string(text, i)
            yield text.count("\n", 0, i) + 1, parts
            i = end
        else:
            i += 1


def _let_literals(text):
    """name -> text of `let name = "…"` literals in a file (interpolations of `schema` as public)."""
    out = {}
    for m in re.finditer(r'\blet\s+(\w+)(?:\s*:\s*String)?\s*=\s*(?=")', text):
        parts, _ = _read_string(text, m.end())
        out[m.group(1)] = "".join(p if isinstance(p, str) else RAW_TEXT.get(p[1], "?") for p in parts)
    return out


def _type_lets(name):
    """The `let` literals of `Type.swift` for a qualified `Type.name`."""
    owner = name.split(".")[0]
    for path in SOURCES.rglob(owner + ".swift"):
        return _let_literals(path.read_text())
    return {}


def _local_time(method, argument):
    """The parts of `LocalTime`'s `method` literal for a call with `argument` (Ledger/Usage/LocalTime.swift)."""
    text = (SOURCES / "Ledger" / "Usage" / "LocalTime.swift").read_text()
    column = re.fullmatch(r'ofColumn:\s*"([^"]*)"', argument)
    signature = r"func %s\(%s" % (method, r"ofColumn column" if column else r"_ at")
    start = re.search(signature, text)
    assert start, "LocalTime.%s(%s) not found" % (method, argument)
    literal = text.index('"', start.end())
    parts, _ = _read_string(text, literal)
    if column:
        parts = [column.group(1) if p == ("interp", "unsafeRaw: column") else p for p in parts]
    return parts


def _render(parts, lets, file):
    """The statement PGQuery sends for a literal's parts: its SQL with `$1`…`$n`, n, and the interpolations that
    could not be turned back into SQL. A fragment (FRAGMENTS, LocalTime's methods, a `let` of the file that is
    SQL itself) is spliced in whole, its own parameters numbered in turn."""
    sql, problems = [], []
    n = 0

    def param():
        nonlocal n
        n += 1
        return "$%d" % n

    def fragment(text):
        # `$` is a parameter; `${local.day}` LocalTime.day's SQL for an event's time.
        for piece in re.split(r"(\$\{local\.day\}|\$)", text):
            if piece == "$":
                sql.append(param())
            elif piece == "${local.day}":
                render(_local_time("day", "at"))
            else:
                sql.append(piece)

    def render(items):
        for part in items:
            if isinstance(part, str):
                sql.append(part.replace("\\\\", "\\").replace('\\"', '"').replace("\\n", "\n"))
                continue
            expr = part[1]
            local = LOCAL_TIME.match(expr)
            if expr.startswith("unsafeRaw:"):
                name = expr[len("unsafeRaw:") :].strip()
                short = name.split(".")[-1]
                if name in RAW_TEXT:
                    sql.append(RAW_TEXT[name])
                elif "." in name and short in _type_lets(name):
                    sql.append(_type_lets(name)[short])
                elif short in lets:
                    sql.append(lets[short])
                else:
                    problems.append(expr)
                    sql.append("?")
            elif (file, expr) in FRAGMENTS or expr in FRAGMENTS:
                fragment(FRAGMENTS.get((file, expr), FRAGMENTS.get(expr)))
            elif local:
                render(_local_time(*local.groups()))
            elif expr.removeprefix("Self.") in _sql_lets(file):
                render(_sql_lets(file)[expr.removeprefix("Self.")])
            else:
                sql.append(param())

    render(parts)
    return "".join(sql), n, problems


def _sql_lets(file):
    """name -> parts of `let name: PGQuery = "…"` literals of a file: SQL pieces interpolated by name."""
    text = (SOURCES / file).read_text()
    out = {}
    for m in re.finditer(r'\blet\s+(\w+)\s*:\s*PGQuery\s*=\s*(?=")', text):
        out[m.group(1)] = _read_string(text, m.end())[0]
    return out


def collect():
    """Every statement of Sources/**/*.swift that names a table, then every report definition."""
    statements = []
    for path in sorted(SOURCES.rglob("*.swift")):
        text = path.read_text()
        lets = _let_literals(text)
        for line, parts in _literals(text):
            plain = "".join(p if isinstance(p, str) else " x " for p in parts)
            # Statements, and pieces of them that name a table (a listing's `FROM installations WHERE …`).
            if not SQL_WORDS.search(plain) and not TABLE_REF.search(plain):
                continue
            file = str(path.relative_to(SOURCES))
            sql, n, problems = _render(parts, lets, file)
            statement = Statement(file, line, sql, n, problems)
            if statement.tables():
                statements.append(statement)
    for path in sorted((SOURCES / "Reports" / "Definitions").glob("*.sql")):
        sql = path.read_text()
        n = max((int(x) for x in re.findall(r"\$(\d+)", sql)), default=0)
        statements.append(Statement(str(path.relative_to(SOURCES)), 1, sql, n, []))
    return statements
