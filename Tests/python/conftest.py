"""Session set-up for the LeanCloud Python SDK compatibility tests.

Needs env PUSHLEDGER_TEST_PG (base libpq URI of a throw-away cluster, no database part) and
PUSHLEDGER_BIN (the pushledger binary; defaults to .build/debug/pushledger of this repo). The session
creates a fresh database, migrates it, creates an app with known keys, starts `pushledger serve --port 0`
and points the SDK at it with LEANCLOUD_API_SERVER. The SDK itself is used unchanged.
"""

import dataclasses
import hashlib
import json
import os
import pathlib
import queue
import secrets
import subprocess
import threading
import time
import urllib.parse

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
APP_ID = "pyAppOne" + secrets.token_hex(4)
APP_KEY = "pyKeyOne" + secrets.token_hex(8)
MASTER_KEY = "pyMasterOne" + secrets.token_hex(8)


def database_url(base, name):
    parts = urllib.parse.urlsplit(base)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def psql(url, sql):
    """Runs one statement with the psql CLI and returns its unaligned, tuples-only output."""
    done = subprocess.run(
        ["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-A", "-t", "-q", "-c", sql],
        capture_output=True, text=True, timeout=30,
    )
    if done.returncode != 0:
        raise RuntimeError("psql failed (%s): %s" % (sql, done.stderr))
    return done.stdout.strip()


def citus_workers():
    """The worker ports of the Citus cluster `scripts/test-citus` runs these suites on (its coordinator is
    PUSHLEDGER_TEST_PG, on the same host); empty on one PostgreSQL."""
    return [int(p) for p in os.environ.get("PUSHLEDGER_TEST_CITUS_WORKERS", "").split(",") if p]


def _on_port(base, port, name):
    parts = urllib.parse.urlsplit(base)
    netloc = "%s@%s:%d" % (parts.username, parts.hostname, port) if parts.username else "%s:%d" % (parts.hostname, port)
    return urllib.parse.urlunsplit((parts.scheme, netloc, "/" + name, parts.query, parts.fragment))


def create_database(base, name):
    """A new database `name` on the test cluster. On Citus it is a database on every node with the extension,
    the workers registered with the coordinator (a Citus cluster is one database)."""
    psql(database_url(base, "postgres"), 'CREATE DATABASE "%s"' % name)
    workers = citus_workers()
    if not workers:
        return
    for port in workers:
        psql(_on_port(base, port, "postgres"), 'CREATE DATABASE "%s"' % name)
        psql(_on_port(base, port, name), "CREATE EXTENSION citus; CREATE EXTENSION IF NOT EXISTS postgis")
    parts = urllib.parse.urlsplit(base)
    url = database_url(base, name)
    psql(url, "CREATE EXTENSION citus; CREATE EXTENSION IF NOT EXISTS postgis")
    psql(url, "SELECT citus_set_coordinator_host('%s', %d)" % (parts.hostname, parts.port))
    for port in workers:
        psql(url, "SELECT citus_add_node('%s', %d)" % (parts.hostname, port))


def drop_database(base, name):
    for url in [database_url(base, "postgres")] + [_on_port(base, p, "postgres") for p in citus_workers()]:
        try:
            psql(url, 'DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name)
        except RuntimeError:
            pass


@dataclasses.dataclass
class Server:
    base_url: str  # http://127.0.0.1:PORT
    app_id: str
    app_key: str
    master_key: str
    database_url: str
    binary: str
    log_path: pathlib.Path = None  # the server's stderr: one JSON object per line (LOG_FORMAT=json)

    def url(self, path):
        return self.base_url + "/1.1" + path

    def sql(self, statement):
        return psql(self.database_url, statement)

    def event_count(self, app_id=None):
        if app_id is None:
            return int(self.sql("SELECT count(*) FROM events"))
        return int(self.sql("SELECT count(*) FROM events WHERE app_id = '%s'" % app_id.replace("'", "''")))

    def cli(self, *args, check=True):
        env = dict(os.environ, DATABASE_URL=self.database_url)
        done = subprocess.run([self.binary, *args], capture_output=True, text=True, env=env, timeout=60)
        if check and done.returncode != 0:
            raise RuntimeError("pushledger %s exited %d: %s%s" % (args, done.returncode, done.stdout, done.stderr))
        return done

    def create_app(self, name, app_id, key, master_key):
        done = self.cli("app", "create", "--name", name, "--id", app_id, "--key", key, "--master-key", master_key)
        return json.loads(done.stdout.strip().splitlines()[-1])

    # Header sets for raw HTTP requests.
    @staticmethod
    def signed(app_id, key, master=False, timestamp_ms=None):
        ts = str(int(time.time() * 1000) if timestamp_ms is None else timestamp_ms)
        sign = hashlib.md5((ts + key).encode()).hexdigest() + "," + ts + (",master" if master else "")
        return {"X-LC-Id": app_id, "X-LC-Sign": sign, "Content-Type": "application/json"}

    def app_headers(self):
        return {"X-LC-Id": self.app_id, "X-LC-Key": self.app_key, "Content-Type": "application/json"}

    def master_headers(self):
        return {"X-LC-Id": self.app_id, "X-LC-Key": self.master_key + ",master", "Content-Type": "application/json"}


def _pump(stream, lines):
    for line in iter(stream.readline, ""):
        lines.put(line)
    lines.put(None)


def _json_line(proc, key, timeout=30):
    """The value under `key` of the first JSON line the child prints, or None if it never comes."""
    lines = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            return None
        try:
            return json.loads(line)[key]
        except (ValueError, KeyError, TypeError):
            continue
    return None


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    base = os.environ.get("PUSHLEDGER_TEST_PG")
    if not base:
        pytest.fail("PUSHLEDGER_TEST_PG is not set (base libpq URI of a throw-away PostgreSQL cluster)")
    binary = os.environ.get("PUSHLEDGER_BIN") or str(REPO / ".build" / "debug" / "pushledger")
    if not os.access(binary, os.X_OK):
        pytest.fail("pushledger binary not found or not executable: %s" % binary)

    name = "pushledger_py_%d_%s" % (os.getpid(), secrets.token_hex(3))
    create_database(base, name)
    db_url = database_url(base, name)
    srv = Server("", APP_ID, APP_KEY, MASTER_KEY, db_url, binary)
    proc = None
    saved_env = os.environ.get("LEANCLOUD_API_SERVER")
    try:
        srv.cli("migrate")
        if citus_workers():
            # The layout docs/scaling.md gives, as an operator makes it; few shards keep the test cluster small.
            srv.cli("distribute", "--shard-count", "4")
        keys = srv.create_app("python-sdk", APP_ID, APP_KEY, MASTER_KEY)
        assert keys == {"appId": APP_ID, "appKey": APP_KEY, "masterKey": MASTER_KEY}, keys

        log_dir = tmp_path_factory.mktemp("pushledger")
        stderr = open(log_dir / "serve.stderr", "w")
        proc = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE, stderr=stderr, text=True,
            env=dict(os.environ, DATABASE_URL=db_url, LOG_FORMAT="json", LOG_LEVEL="info"),
        )
        stderr.close()
        srv.log_path = log_dir / "serve.stderr"
        listening = _json_line(proc, "listening")
        port = None
        if listening is not None:
            assert listening["host"] == "127.0.0.1"
            port = int(listening["port"])
        if port is None:
            proc.kill()
            proc.wait(10)
            pytest.fail("pushledger serve did not print its listening line; stderr:\n"
                        + (log_dir / "serve.stderr").read_text()[-4000:])
        srv.base_url = "http://127.0.0.1:%d" % port
        # How the SDK is pointed at a self-hosted server: it reads this on every request (client.get_url).
        os.environ["LEANCLOUD_API_SERVER"] = srv.base_url
        yield srv
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()  # SIGTERM to the server's own pid
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if saved_env is None:
            os.environ.pop("LEANCLOUD_API_SERVER", None)
        else:
            os.environ["LEANCLOUD_API_SERVER"] = saved_env
        drop_database(base, name)


def pytest_collection_modifyitems(session, config, items):
    """Tests marked `last` (the rebuild check) run after everything else."""
    items.sort(key=lambda item: 1 if item.get_closest_marker("last") else 0)


def pytest_configure(config):
    config.addinivalue_line("markers", "last: run after every other test of the session")


class SDK:
    """Switches the (global) LeanCloud SDK client between the app key and the master key."""

    def __init__(self, server):
        import leancloud

        self.lc = leancloud
        self.server = server

    def as_app(self, app_id=None, key=None):
        self.lc.init(app_id or self.server.app_id, key or self.server.app_key)
        return self.lc

    def as_master(self, app_id=None, master_key=None):
        self.lc.init(app_id or self.server.app_id, master_key=master_key or self.server.master_key)
        return self.lc

    def fetch(self, object_id):
        obj = self.lc.Installation.create_without_data(object_id)
        obj.fetch()
        return obj


@pytest.fixture
def sdk(server):
    s = SDK(server)
    s.as_app()
    yield s
    s.lc.client.request_hooks.clear()
    s.as_app()


def new_token():
    """A random APNs token in upper case (the server lower-cases it)."""
    return secrets.token_hex(32).upper()


def new_channel(prefix="ch"):
    return prefix + "_" + secrets.token_hex(5)


@pytest.fixture
def token():
    return new_token


@pytest.fixture
def channel():
    return new_channel


# ---------------------------------------------------------------------------------------------------------
# Provider simulator (`pushledger simulate`) and an app pointed at it, for the push tests (SPEC §4–5).

APNS_KEY_ID = "PYKEY" + secrets.token_hex(3).upper()
APNS_TEAM_ID = "PYTEAM" + secrets.token_hex(2).upper()
APNS_TOPIC = "com.example.app"


def _openssl_pkcs8(out, *genkey):
    """Generates a key with the openssl CLI and stores it as unencrypted PKCS#8 PEM."""
    key = subprocess.run(["openssl", *genkey], capture_output=True, check=True, timeout=60).stdout
    subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-out", str(out)],
                   input=key, capture_output=True, check=True, timeout=60)
    return out


@dataclasses.dataclass
class Simulator:
    control: str  # https://127.0.0.1:PORT/_sim
    ca_file: str
    app_settings: dict
    key_id: str
    team_id: str
    apns_key_file: str  # the .p8 key the simulator accepts JWTs from
    service_account_file: str  # the FCM service-account JSON whose assertions it accepts

    def _call(self, method, path, **params):
        import requests

        r = requests.request(method, self.control + path, params=params, verify=self.ca_file, timeout=10)
        r.raise_for_status()
        return r.json()

    def stats(self):
        return self._call("GET", "/stats", tokens=0)

    def requests_for(self, token):
        """{"token", "requests", "accepted", "recorded": [{"path", "headers", "payload", ...}]}"""
        return self._call("GET", "/requests", token=token)

    def reset(self):
        return self._call("POST", "/reset")


@pytest.fixture(scope="module")
def simulator(server, tmp_path_factory):
    """Starts `pushledger simulate` with freshly generated APNs (.p8, ES256) and FCM (RSA) credentials."""
    work = tmp_path_factory.mktemp("simulator")
    _openssl_pkcs8(work / "apns.p8", "ecparam", "-name", "prime256v1", "-genkey", "-noout")
    rsa = _openssl_pkcs8(work / "fcm.pem", "genrsa", "2048")
    (work / "sa.json").write_text(json.dumps({
        "type": "service_account", "project_id": "demo", "client_email": "x@demo.iam.gserviceaccount.com",
        "private_key": rsa.read_text(), "token_uri": "https://127.0.0.1/token",
    }))
    stderr = open(work / "simulate.stderr", "w")
    proc = subprocess.Popen(
        [server.binary, "simulate", "--host", "127.0.0.1", "--port", "0", "--cert-dir", str(work / "certs"),
         "--apns-key-file", str(work / "apns.p8"), "--apns-key-id", APNS_KEY_ID, "--apns-team-id", APNS_TEAM_ID,
         "--fcm-service-account", str(work / "sa.json")],
        stdout=subprocess.PIPE, stderr=stderr, text=True,
    )
    stderr.close()
    try:
        info = _json_line(proc, "simulator")
        if info is None:
            pytest.fail("pushledger simulate did not print its JSON line; stderr:\n"
                        + (work / "simulate.stderr").read_text()[-4000:])
        yield Simulator(info["control"], info["caFile"], dict(info["appSettings"]), APNS_KEY_ID, APNS_TEAM_ID,
                        str(work / "apns.p8"), str(work / "sa.json"))
        assert proc.poll() is None, "the simulator died during the module"
    finally:
        if proc.poll() is None:
            proc.terminate()  # SIGTERM to the simulator's own pid
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


@dataclasses.dataclass
class PushApp:
    app_id: str
    app_key: str
    master_key: str

    def master_headers(self):
        return {"X-LC-Id": self.app_id, "X-LC-Key": self.master_key + ",master", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def push_app(server, simulator):
    """A new app for the module, fully configured for the simulator before the running server first reads it."""
    app = PushApp("pyPush" + secrets.token_hex(4), "pyPushKey" + secrets.token_hex(8),
                  "pyPushMaster" + secrets.token_hex(8))
    keys = server.create_app("python-sdk-push", app.app_id, app.app_key, app.master_key)
    assert keys == {"appId": app.app_id, "appKey": app.app_key, "masterKey": app.master_key}, keys
    settings = dict(simulator.app_settings)
    settings.update({
        "apns.key_file": simulator.apns_key_file, "apns.key_id": simulator.key_id,
        "apns.team_id": simulator.team_id, "apns.topic": APNS_TOPIC,
        "fcm.service_account_file": simulator.service_account_file, "fcm.project_id": "demo",
        # The simulator started without --wns-package-sid takes any package SID and secret.
        "wns.package_sid": "ms-app://s-1-15-2-pytest", "wns.secret": "pytest-secret",
    })
    server.cli("app", "set", "--app", app.app_id, *("%s=%s" % kv for kv in sorted(settings.items())))
    return app
