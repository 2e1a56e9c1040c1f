"""docs/openapi.yaml against the code and the running server.

1. The document is a valid OpenAPI description (openapi-spec-validator).
2. It covers exactly the routes the router registers: they are read from the Swift sources
   (Sources/API/APIRouter.swift and the `register(on:)` functions of the *Routes types it mounts), so a route
   added to the code without being documented fails here, and so does a documented route the code dropped.
3. Schemathesis generates requests from the document (schema-conforming and schema-violating ones, a fixed
   seed, a bounded number per operation) and sends them to the session's live server, as the master key of an
   app of its own, with each of the accepted header styles in turn. Half of the requests name objects made for
   the operation (installations, push records, a scheduled push) or carry known-good bodies, so that they get
   past "not found" into the stores. Every answer must be
     - no 5xx (not_a_server_error),
     - for a 4xx, the JSON body {"code": <int>, "error": <str>} (SPEC §2),
     - of the content type and body shape the document gives for its status (response_schema_conformance,
       content_type_conformance), so that the document cannot drift from the server unnoticed.
   Server bugs already known are listed in KNOWN_BUGS, matched on the exact request shape, and turn the
   operation's test into an xfail naming them; anything else fails.

Env: PUSHLEDGER_OPENAPI_EXAMPLES (examples per operation and generation mode, default 15);
PUSHLEDGER_OPENAPI_TRACE (a file that gets one JSON line per request sent: operation, status, URL, body).
"""

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import secrets
import time

import hypothesis
import pytest
import requests
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

REPO = pathlib.Path(__file__).resolve().parents[2]
SPEC = REPO / "docs" / "openapi.yaml"
API_SOURCES = REPO / "Sources" / "API"
EXAMPLES = int(os.environ.get("PUSHLEDGER_OPENAPI_EXAMPLES", "15"))
TRACE_FILE = os.environ.get("PUSHLEDGER_OPENAPI_TRACE")  # one JSON line per request: what the generator reaches
SEED = 20261125
REQUEST_TIMEOUT = 20
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


# ---------------------------------------------------------------------------------------------------------
# 1. The document is valid OpenAPI.

def load_spec():
    with open(SPEC, encoding="utf-8") as f:
        return yaml.safe_load(f)


def test_spec_is_valid_openapi():
    from openapi_spec_validator import validate

    spec = load_spec()
    assert str(spec.get("openapi", "")).startswith("3."), spec.get("openapi")
    validate(spec)  # raises OpenAPIValidationError with the offending path


# Error answers that carry more than {"code","error"}: /ready's 503 adds the result of each check.
EXTENDED_ERRORS = {("get", "/ready", "503"): "#/components/schemas/NotReady"}


def test_every_documented_error_is_lean_error_shaped():
    """Every non-2xx response the document gives is the {"code","error"} JSON of SPEC §2."""
    spec = load_spec()
    responses = spec["components"]["responses"]
    schemas = spec["components"]["schemas"]
    assert schemas["Error"]["required"] == ["code", "error"]
    for path, item in spec["paths"].items():
        for method in HTTP_METHODS:
            op = item.get(method)
            if op is None:
                continue
            for status, response in op["responses"].items():
                if str(status).startswith("2"):
                    continue
                if "$ref" in response:
                    response = responses[response["$ref"].rsplit("/", 1)[1]]
                assert list(response["content"]) == ["application/json"], (method, path, status)
                schema = response["content"]["application/json"]["schema"]
                expected = EXTENDED_ERRORS.get((method, path, str(status)), "#/components/schemas/Error")
                assert schema == {"$ref": expected}, (method, path, status)
                if expected != "#/components/schemas/Error":
                    extended = schemas[expected.rsplit("/", 1)[1]]
                    assert {"code", "error"} <= set(extended["required"]), expected


# ---------------------------------------------------------------------------------------------------------
# 2. Every route the router registers is documented, and nothing else.

ROUTE_CALL = re.compile(r"\b(\w+)\.(get|put|post|delete|patch|head|options)\s*\(")
FOR_LOOP = re.compile(r"\bfor\s+(\w+)\s+in\s+\[([^\]]*)\]\s*\{")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _matching(text, open_index, open_char, close_char):
    """Index of the bracket closing the one at open_index (Swift strings are skipped)."""
    depth, i = 0, open_index
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == open_char:
            depth += 1
        elif c == close_char:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced %s at %d" % (open_char, open_index))


def _loops(text):
    """(variable, values, body start, body end) of every `for x in ["a", "b"] { ... }` loop."""
    loops = []
    for m in FOR_LOOP.finditer(text):
        values = STRING.findall(m.group(2))
        end = _matching(text, m.end() - 1, "{", "}")
        loops.append((m.group(1), values, m.end(), end))
    return loops


def _expand(expr, bindings, where):
    """All values of a route path expression: string literals and loop variables joined by `+`, optionally
    wrapped in RouterPath(...)."""
    expr = expr.strip()
    m = re.fullmatch(r"RouterPath\((.*)\)", expr, re.S)
    if m:
        expr = m.group(1).strip()
    results = [""]
    for term in (t.strip() for t in expr.split("+")):
        s = STRING.fullmatch(term)
        if s:
            options = [s.group(1)]
        elif term in bindings:
            options = bindings[term]
        else:
            raise AssertionError("cannot read the route path expression %r in %s: teach test_openapi.py "
                                 "this form of route registration" % (expr, where))
        results = [r + o for r in results for o in options]
    return results


def _route_calls(text, receiver, where):
    """(METHOD, path) of every `receiver.get(...)`-style registration in text."""
    loops = _loops(text)
    routes = []
    for m in ROUTE_CALL.finditer(text):
        if m.group(1) != receiver:
            continue
        close = _matching(text, m.end() - 1, "(", ")")
        args = text[m.end():close]
        # The path is the first argument (the handler is a trailing closure or a later argument).
        depth, first = 0, len(args)
        for i, c in enumerate(args):
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "," and depth == 0:
                first = i
                break
        bindings = {var: values for var, values, start, end in loops if start <= m.start() < end}
        for path in _expand(args[:first], bindings, where):
            routes.append((m.group(2).upper(), path))
    return routes


def _join(prefix, path):
    full = "/" + "/".join(p.strip("/") for p in (prefix, path) if p.strip("/"))
    # Hummingbird's `:name` parameters are OpenAPI's `{name}`.
    full = re.sub(r":(\w+)", r"{\1}", full)
    assert "*" not in full, "wildcard route %s: document it and teach this test about it" % full
    return full


def registered_routes():
    """The (METHOD, path) pairs the server registers, read from the Swift sources."""
    router_file = API_SOURCES / "APIRouter.swift"
    text = router_file.read_text(encoding="utf-8")
    make = text.index("static func make(")
    body = text[make:_matching(text, text.index("{", make), "{", "}")]

    routes = set()
    # Routes on the root router itself.
    for method, path in _route_calls(body, "router", router_file.name):
        routes.add((method, _join("", path)))
    # Groups: `let api = router.group("/1.1")...`; the root router is the group "".
    groups = {m.group(1): m.group(2) for m in re.finditer(r'let\s+(\w+)\s*=\s*router\.group\(\s*"([^"]*)"\s*\)', body)}
    assert groups, "no router.group(...) found in APIRouter.make"
    groups["router"] = ""
    # Route collections mounted with `XRoutes(...).register(on: group)`, or `value.register(on: group)` where
    # `value: XRoutes` is a parameter of make.
    mounted = []
    for m in re.finditer(r"\b(\w+)\s*(\([^()]*\))?\s*\.register\(\s*on:\s*(\w+)\s*\)", body):
        name, constructed, group = m.groups()
        if not constructed:
            declared = re.search(r"\b%s\s*:\s*(\w+)" % re.escape(name), body)
            assert declared, "cannot tell the type of %r in APIRouter.make" % name
            name = declared.group(1)
        mounted.append((name, group))
    assert mounted, "no .register(on:) found in APIRouter.make"
    sources = {p: p.read_text(encoding="utf-8") for p in API_SOURCES.rglob("*.swift")}
    mounted_types = set()
    for type_name, group in mounted:
        assert group in groups, "%s is registered on %r, which is not a known group" % (type_name, group)
        files = [p for p, t in sources.items() if re.search(r"\bstruct\s+%s\b" % re.escape(type_name), t)]
        assert len(files) == 1, "struct %s: found in %s" % (type_name, files)
        text = sources[files[0]]
        start = text.index("func register(on router:")
        register = text[start:_matching(text, text.index("{", start), "{", "}") + 1]
        calls = _route_calls(register, "router", files[0].name)
        assert calls, "%s.register(on:) registers no route the test can read" % type_name
        for method, path in calls:
            routes.add((method, _join(groups[group], path)))
        mounted_types.add(type_name)
    # A route collection in Sources/API that the router does not mount would be dead code, or mounted in a way
    # this parser does not see: either way a reason to look.
    for path, text in sources.items():
        for m in re.finditer(r"\bstruct\s+(\w+Routes)\b", text):
            assert m.group(1) in mounted_types, "%s (%s) is not mounted as the test expects" % (m.group(1), path.name)
    return routes


# A floor for the parser: if it ever reads fewer routes than these, the parser broke, not the router.
KNOWN_ROUTES = {
    ("GET", "/health"), ("GET", "/ready"), ("GET", "/metrics"),
    ("POST", "/1.1/installations"), ("GET", "/1.1/installations"),
    ("GET", "/1.1/installations/{objectId}"), ("PUT", "/1.1/installations/{objectId}"),
    ("DELETE", "/1.1/installations/{objectId}"),
    ("POST", "/1.1/classes/_Installation"), ("GET", "/1.1/classes/_Installation"),
    ("GET", "/1.1/classes/_Installation/{objectId}"), ("PUT", "/1.1/classes/_Installation/{objectId}"),
    ("DELETE", "/1.1/classes/_Installation/{objectId}"),
    ("POST", "/1.1/push"), ("POST", "/1.1/push/devices"),
    ("GET", "/1.1/notifications"), ("GET", "/1.1/notifications/{objectId}"),
    ("DELETE", "/1.1/notifications/{objectId}"), ("GET", "/1.1/tables/Notifications/{objectId}"),
    ("GET", "/1.1/scheduledPushMessages"), ("DELETE", "/1.1/scheduledPushMessages/{id}"),
    ("POST", "/1.1/events/AppOpened"), ("POST", "/1.1/stats/collect"),
    ("GET", "/1.1/reports/{name}"),
}


def documented_routes():
    spec = load_spec()
    return {(method.upper(), path) for path, item in spec["paths"].items() for method in HTTP_METHODS if method in item}


def test_router_source_parser_sees_the_known_routes():
    routes = registered_routes()
    missing = KNOWN_ROUTES - routes
    assert not missing, "the Swift route parser no longer sees %s; fix the parser" % sorted(missing)


def test_every_registered_route_is_documented():
    undocumented = registered_routes() - documented_routes()
    assert not undocumented, "routes registered in Sources/API but missing from docs/openapi.yaml: %s" % (
        sorted(undocumented))


def test_every_documented_route_is_registered():
    stale = documented_routes() - registered_routes()
    assert not stale, "routes in docs/openapi.yaml that the router does not register: %s" % sorted(stale)


# The console (Sources/Console, issue 17) is HTML for people, mounted beside the REST API by the composition
# root, and is deliberately not in docs/openapi.yaml. The rule that keeps this honest: every route it
# registers is GET / (the redirect to the console) or under /console/, and none is a documented REST path.
CONSOLE_ROUTES_FILE = REPO / "Sources" / "Console" / "ConsoleRoutes.swift"
CONSOLE_GROUPS = {"router": "", "console": "/console", "signedIn": "/console"}


def console_routes():
    text = CONSOLE_ROUTES_FILE.read_text(encoding="utf-8")
    start = text.index("func register(on router:")
    register = text[start:_matching(text, text.index("{", start), "{", "}") + 1]
    # The groups the test knows: a new one must be added here, so its prefix is checked too.
    for m in re.finditer(r"let\s+(\w+)\s*=\s*(\w+)\.group\(", register):
        assert m.group(1) in CONSOLE_GROUPS, "console group %r: teach test_openapi.py its prefix" % m.group(1)
    routes = set()
    for receiver, prefix in CONSOLE_GROUPS.items():
        for method, path in _route_calls(register, receiver, CONSOLE_ROUTES_FILE.name):
            routes.add((method, _join(prefix, path)))
    return routes


def test_console_routes_stay_outside_the_rest_api():
    routes = console_routes()
    assert ("GET", "/") in routes and ("POST", "/console/login") in routes, routes  # the parser reads them
    for method, path in routes:
        assert path == "/" or path.startswith("/console/") or path == "/console", (method, path)
    assert not routes & documented_routes(), "console routes must not be documented as REST: %s" % (
        sorted(routes & documented_routes()))
    assert not routes & registered_routes(), "a console route shadows a REST route"


def test_path_parameters_match_route_parameters():
    """`{objectId}` in a path is declared as a path parameter of that name (and nothing else is)."""
    spec = load_spec()
    params = spec["components"]["parameters"]
    for path, item in spec["paths"].items():
        in_path = set(re.findall(r"\{(\w+)\}", path))
        for method in HTTP_METHODS:
            if method not in item:
                continue
            declared = set()
            for p in item.get("parameters", []) + item[method].get("parameters", []):
                if "$ref" in p:
                    p = params[p["$ref"].rsplit("/", 1)[1]]
                if p["in"] == "path":
                    declared.add(p["name"])
            assert declared == in_path, (method, path, declared)


# ---------------------------------------------------------------------------------------------------------
# 3. Schemathesis against the live server.

# Server bugs schemathesis found that are not fixed yet. Each entry: (operation label, predicate over the
# case that was sent and the response, reason). A matching failure is reported as xfail; any other failure
# fails the test.
KNOWN_BUGS = []

# Headers of the document's security schemes: the test sends its own credentials, never generated ones.
AUTH_HEADERS = ("X-LC-Id", "X-LC-Key", "X-LC-Sign", "X-AVOSCloud-Application-Id", "X-AVOSCloud-Application-Key",
                "X-AVOSCloud-Master-Key", "X-AVOSCloud-Request-Sign")


def _known_bug(label, case, response):
    for bug_label, matches, reason in KNOWN_BUGS:
        if bug_label == label and matches(case, response):
            return reason
    return None


@dataclasses.dataclass
class FuzzApp:
    app_id: str
    key: str
    master: str

    def master_headers(self):
        return {"X-LC-Id": self.app_id, "X-LC-Key": self.master + ",master"}


@pytest.fixture(scope="module")
def openapi_app(server):
    """An app of the module's own, so that what the fuzzing stores and pushes touches no other test's app.
    Generous limits (set before the server first reads the app) keep pushes from being refused for rate or
    quota, which would only hide the answers under test."""
    app = FuzzApp("pyOpenAPI" + secrets.token_hex(4), "pyOaKey" + secrets.token_hex(8),
                  "pyOaMaster" + secrets.token_hex(8))
    keys = server.create_app("openapi", app.app_id, app.key, app.master)
    assert keys == {"appId": app.app_id, "appKey": app.key, "masterKey": app.master}, keys
    server.cli("app", "set", "--app", app.app_id, "push_rate_per_minute=10000000", "daily_push_quota=10000000000",
               "max_scheduled=1000000")
    return app


def _auth_styles(app):
    """Master-key credentials in each header style the server accepts (SPEC §1); fresh for each request."""

    def sign(key):
        ts = str(int(time.time() * 1000))
        return hashlib.md5((ts + key).encode()).hexdigest() + "," + ts + ",master"

    return {
        "X-LC-Key": lambda: {"X-LC-Id": app.app_id, "X-LC-Key": app.master + ",master"},
        "X-LC-Sign": lambda: {"X-LC-Id": app.app_id, "X-LC-Sign": sign(app.master)},
        "X-AVOSCloud-Master-Key": lambda: {"X-AVOSCloud-Application-Id": app.app_id,
                                           "X-AVOSCloud-Master-Key": app.master},
        "X-AVOSCloud-Request-Sign": lambda: {"X-AVOSCloud-Application-Id": app.app_id,
                                             "X-AVOSCloud-Request-Sign": sign(app.master)},
    }


def _schema(mode="positive"):
    import schemathesis

    schema = schemathesis.openapi.from_path(str(SPEC))
    # Credentials come from the test; NUL characters (refused as code 107 anywhere in a body) only in
    # schema-violating data, so that schema-conforming data reaches the deeper validation.
    schema.config.generation.update(with_security_parameters=False, allow_x00=(mode != "positive"))
    # The app and its keys are throw-away: failure reports show the exact request, curl line included.
    schema.config.output.sanitization.update(enabled=False)
    return schema


def _operation_labels():
    try:
        schema = _schema()
    except Exception as exc:  # noqa: BLE001 - reported by test_spec_is_valid_openapi; keep collection going
        return ["<docs/openapi.yaml does not load: %s>" % exc]
    return [result.ok().label for result in schema.get_all_operations()]


def check_error_body(ctx, response, case):
    """SPEC §2: a 4xx is the JSON object {"code": <int>, "error": <non-empty str>} and nothing else."""
    if not 400 <= response.status_code < 500:
        return None
    content_type = response.headers.get("content-type", [""])[0]
    if not content_type.startswith("application/json"):
        raise AssertionError("4xx with Content-Type %r: %r" % (content_type, response.content[:300]))
    try:
        body = json.loads(response.content)
    except ValueError:
        raise AssertionError("4xx body is not JSON: %r" % response.content[:300]) from None
    if not (isinstance(body, dict) and set(body) == {"code", "error"} and type(body["code"]) is int
            and isinstance(body["error"], str) and body["error"]):
        raise AssertionError('4xx body is not {"code": int, "error": str}: %r' % body)
    return True


def _seed_objects(server, app):
    """Fresh objects for one operation's run, so that generated requests also reach existing installations,
    push records and scheduled pushes (random ids only ever reach "not found")."""
    headers = dict(app.master_headers(), **{"Content-Type": "application/json"})

    def call(method, path, body=None, expect=(200, 201)):
        r = requests.request(method, server.url(path), headers=headers, json=body, timeout=REQUEST_TIMEOUT)
        assert r.status_code in expect, (method, path, r.status_code, r.text)
        return r.json()

    token = secrets.token_hex(32)
    iid = "oa-" + secrets.token_hex(8)
    nid = "oa" + secrets.token_hex(6)
    ios = call("POST", "/installations", {"deviceType": "ios", "deviceToken": token, "channels": ["oa"], "badge": 1,
                                          "custom": {"__type": "Date", "iso": "2026-01-02T03:04:05.678Z"}})
    android = call("POST", "/classes/_Installation", {"deviceType": "android", "installationId": iid,
                                                      "channels": ["oa", "x"], "timeZone": "Asia/Shanghai"})
    push = call("POST", "/push", {"data": {"alert": "seed", "ios": {"alert": "i", "badge": "Increment"}},
                                  "channels": ["oa"], "notification_id": nid})
    future = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 86400))
    scheduled = call("POST", "/push", {"data": {"alert": "later"}, "where": {"deviceType": "android"},
                                       "push_time": future, "req_id": nid})
    listed = call("GET", "/scheduledPushMessages")["results"]
    schedule_ids = [row["id"] for row in listed if row["push_msg"].get("req_id") == nid]
    assert len(schedule_ids) == 1, listed
    now_ms = int(time.time() * 1000)
    return {
        "installations": [ios["objectId"], android["objectId"]],
        "notifications": [push["objectId"], scheduled["objectId"]],
        "scheduled": schedule_ids,
        "bodies": {
            "POST /1.1/installations": [
                {"deviceType": "ios", "deviceToken": token.upper(), "badge": 0},  # an upsert: HTTP 200
                {"deviceType": "android", "installationId": iid, "channels": {"__op": "AddUnique", "objects": ["y"]}},
            ],
            "POST /1.1/events/AppOpened": [
                {"objectId": ios["objectId"]},
                {"installationId": iid, "notificationId": push["objectId"]},
                {"objectId": android["objectId"], "at": {"__type": "Date", "iso": "2026-01-02T03:04:05Z"}},
            ],
            "POST /1.1/stats/collect": [
                {"device": {"installationId": iid},
                 "events": [{"event": "!AV!AppOpen"}, {"event": "!AV!PushOpen", "attr": {"_nid": push["objectId"]}},
                            {"event": "_page", "ts": now_ms}]},
                {"client": {"objectId": ios["objectId"]}, "events": {"event": [{"name": "!AV!PushOpen", "ts": now_ms}]}},
            ],
            "POST /1.1/push": [
                {"data": {"alert": "x"}, "channels": ["oa"], "expiration_interval": 3600, "prod": "dev"},
                {"data": {"android": {"title": "t", "alert": "a"}}, "where": {"channels": {"$regex": "^o"}},
                 "push_time": future, "notification_id": nid},
            ],
            "POST /1.1/push/devices": [
                {"device_type": "ios", "device_ids": [token], "data": {"alert": "x", "badge": 2}},
                {"device_type": "android", "device_ids": [iid, "unknown"], "data": {"alert": "x"}, "req_id": nid},
            ],
        },
        "queries": {
            "GET /1.1/installations": [{"where": json.dumps({"channels": "oa"}), "count": "1", "order": "-updatedAt"},
                                       {"where": json.dumps({"badge": {"$gte": 1}}), "keys": "badge,channels"}],
        },
    }


def _extra_strategies(operation, label, mode, seeded):
    """Strategies that put the seeded objects into generated requests."""
    generic = label.replace("/classes/_Installation", "/installations")
    extras = []
    path = label.split(" ", 1)[1]
    if "{objectId}" in path or "{id}" in path:
        if "_Installation" in path or "/installations/" in path:
            ids, name = seeded["installations"], "objectId"
        elif "otifications" in path:
            ids, name = seeded["notifications"], "objectId"
        else:
            ids, name = seeded["scheduled"], "id"
        # Schema-violating variants of a request to an existing object need something besides the path to break.
        if mode == "positive" or operation.body or len(operation.query):
            extras += [operation.as_strategy(_mode(mode), path_parameters={name: i}) for i in ids]
    if mode == "positive":
        for body in seeded["bodies"].get(generic, []):
            extras.append(operation.as_strategy(_mode(mode), body=body, media_type="application/json"))
        for query in seeded["queries"].get(generic, []):
            extras.append(operation.as_strategy(_mode(mode), query=query))
    return extras


def _mode(mode):
    from schemathesis import GenerationMode

    return GenerationMode.POSITIVE if mode == "positive" else GenerationMode.NEGATIVE


def _run_operation(label, mode, server, app):
    from schemathesis.checks import not_a_server_error
    from schemathesis.core.failures import FailureGroup
    from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

    method, path = label.split(" ", 1)
    operation = _schema(mode)[path][method]
    styles = _auth_styles(app)
    checks = [not_a_server_error, check_error_body, response_schema_conformance, content_type_conformance]
    generated = operation.as_strategy(_mode(mode))
    api = path.startswith("/1.1/")
    extras = _extra_strategies(operation, label, mode, _seed_objects(server, app)) if api else []
    strategy = st.one_of(generated, st.one_of(extras)) if extras else generated
    known = {}
    sent = []
    session = requests.Session()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False, print_blob=False,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @hypothesis.seed(SEED)
    @given(case=strategy, style=st.sampled_from(sorted(styles)))
    def run(case, style):
        for name in AUTH_HEADERS:
            if case.headers:
                case.headers.pop(name, None)
        headers = styles[style]()
        response = case.call(base_url=server.base_url, session=session, headers=headers, timeout=REQUEST_TIMEOUT)
        sent.append(response.status_code)
        if TRACE_FILE:
            body = response.request.body or b""
            with open(TRACE_FILE, "a", encoding="utf-8") as trace:
                trace.write(json.dumps({
                    "op": label, "mode": mode, "auth": style, "status": response.status_code,
                    "url": response.request.url[:300],
                    "body": (body if isinstance(body, bytes) else str(body).encode())[:300].decode("utf-8", "replace"),
                    "answer": response.content[:200].decode("utf-8", "replace")}) + "\n")
        try:
            case.validate_response(response, checks=checks, headers=headers)
        except FailureGroup as group:
            reason = _known_bug(label, case, response)
            if reason is not None:
                known[reason] = case.as_curl_command(headers=headers, base_url=server.base_url)
                return
            raise AssertionError("%s (%s, auth %s):\n%s" % (label, mode, style, group.message)) from None

    try:
        run()
    except hypothesis.errors.Unsatisfiable:
        if mode == "negative":
            pytest.skip("%s: nothing in it can be made schema-violating" % label)
        raise
    finally:
        session.close()
    assert sent, "no request was sent for %s" % label
    if mode == "positive" and api:
        # Conforming requests must get somewhere: not every one of them refused by authentication.
        assert any(status != 401 for status in sent), "%s: every request was refused with 401" % label
    if known:
        pytest.xfail("known server bug(s): " + "; ".join("%s (e.g. %s)" % kv for kv in sorted(known.items())))


_SPEC_CACHE = {}


def _negatable(label):
    """Whether an operation has something schema-violating data can be made of: a body, a query parameter or a
    path parameter that is more than any string (headers here are free-form strings)."""
    method, path = label.split(" ", 1)
    spec = _SPEC_CACHE.setdefault("spec", load_spec())
    item = spec["paths"].get(path, {})
    op = item.get(method.lower(), {})
    if "requestBody" in op:
        return True
    for p in item.get("parameters", []) + op.get("parameters", []):
        if "$ref" in p:
            p = spec["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]
        if p["in"] == "query" or (p["in"] == "path" and p.get("schema") != {"type": "string"}):
            return True
    return False


def _schemathesis_params():
    params = []
    for label in _operation_labels():
        params.append(pytest.param(label, "positive", id=label + "-positive"))
        if label.startswith("<") or _negatable(label):
            params.append(pytest.param(label, "negative", id=label + "-negative"))
    return params


@pytest.mark.parametrize("label,mode", _schemathesis_params())
def test_schemathesis(server, openapi_app, label, mode):
    assert not label.startswith("<"), label
    _run_operation(label, mode, server, openapi_app)
