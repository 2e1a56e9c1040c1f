"""Every request is answered or closed, promptly (issue 43 item 3, SPEC §12.8).

A `pushledger serve` of this module's own, with short timeouts, holds a few hundred slow, idle and malformed
connections at once while ordinary requests go on: each of them must be answered (400/408/431) or closed
within its timeout, the server's descriptors must come back to where they were, no ordinary request may fail,
and a device-channel WebSocket idle for longer than every HTTP timeout must stay connected. The caps refuse
what is over them with a clear answer.
"""

import contextlib
import json
import os
import re
import secrets
import select
import socket
import threading
import time
import urllib.parse
from datetime import datetime

import pytest
import requests
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from test_device_channel import start_server, stop

REQUEST_TIMEOUT = 2
IDLE_TIMEOUT = 3
MAX_CONNECTIONS = 420
MAX_CHANNEL_CONNECTIONS = 3
SLACK = 1.5  # a timer's firing, the event loop, a busy test machine


@pytest.fixture(scope="module")
def bounded(server, tmp_path_factory):
    log = tmp_path_factory.mktemp("bounded-serve") / "serve.stderr"
    proc, base = start_server(
        server, log, "--request-timeout-seconds", str(REQUEST_TIMEOUT), "--idle-timeout-seconds", str(IDLE_TIMEOUT),
        "--max-connections", str(MAX_CONNECTIONS), "--max-channel-connections", str(MAX_CHANNEL_CONNECTIONS))
    yield proc, base, log
    stop(proc)


def descriptors(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def port_of(base):
    return int(base.rsplit(":", 1)[1])


def open_socket(base):
    s = socket.create_connection(("127.0.0.1", port_of(base)), timeout=10)
    s.settimeout(30)
    return s


def read_until_closed(s, started, budget):
    """(bytes received, seconds from `started` until the server closed), or (…, None) if it never did."""
    got = b""
    s.settimeout(budget)
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return got, time.monotonic() - started
            got += chunk
    except (socket.timeout, TimeoutError):
        return got, None
    except ConnectionResetError:
        return got, time.monotonic() - started


MALFORMED = {
    "control character in a header": (b"GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", 400),
    "control character in the path": (b"GET /hea\x01lth HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    "header without a colon": (b"GET /health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400),
    "TLS ClientHello on the plain port": (bytes.fromhex("16030100a5010000a10303") + bytes(100), 400),
    "head over the limit": (b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 90000 + b"\r\n\r\n", 431),
    "CR/LF in a header name": (b"GET /health HTTP/1.1\r\nHost: x\r\nX\rY: 1\r\n\r\n", 400),
}


def status_of(raw):
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", raw)
    return int(m.group(1)) if m else None


def body_of(raw):
    return json.loads(raw.split(b"\r\n\r\n", 1)[1])


def test_slow_idle_and_malformed_connections_are_closed_within_their_timeouts(bounded, push_app):
    proc, base, log = bounded
    time.sleep(0.5)
    baseline = descriptors(proc.pid)
    failures = []
    stop_traffic = threading.Event()
    served = [0]

    def ordinary_traffic():
        headers = {"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key}
        while not stop_traffic.is_set():
            try:
                r = requests.get(base + "/health", timeout=10)
                body = {"deviceType": "ios", "deviceToken": secrets.token_hex(32)}
                s = requests.post(base + "/1.1/installations", json=body, headers=headers, timeout=10)
                if r.status_code != 200 or s.status_code != 201:
                    failures.append((r.status_code, s.status_code, s.text))
                served[0] += 2
            except requests.RequestException as e:
                failures.append(repr(e))
            time.sleep(0.05)

    traffic = threading.Thread(target=ordinary_traffic, daemon=True)
    traffic.start()

    started = time.monotonic()
    slow = [open_socket(base) for _ in range(120)]
    idle = [open_socket(base) for _ in range(120)]
    kept_alive = [open_socket(base) for _ in range(40)]
    time.sleep(0.3)  # the server accepts them
    assert descriptors(proc.pid) >= baseline + 270, "the connections were not all held at once"
    malformed = [(name, open_socket(base)) for name in MALFORMED for _ in range(10)]
    for s in slow:
        s.sendall(b"GET /health HTTP/1.1\r\n")
    for s in kept_alive:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    for name, s in malformed:
        s.sendall(MALFORMED[name][0])

    # The slow heads drip a header line every half second, which must not keep them alive.
    def drip():
        for _ in range(2 * (REQUEST_TIMEOUT + 2)):
            for s in slow:
                try:
                    s.sendall(b"X-Drip: 1\r\n")
                except OSError:
                    pass
            time.sleep(0.5)

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()

    results = {}

    def watch(kind, s, budget):
        results.setdefault(kind, []).append(read_until_closed(s, started, budget))

    watchers = [threading.Thread(target=watch, args=("slow", s, REQUEST_TIMEOUT + 10)) for s in slow]
    watchers += [threading.Thread(target=watch, args=("idle", s, IDLE_TIMEOUT + 10)) for s in idle]
    watchers += [threading.Thread(target=watch, args=("kept alive", s, IDLE_TIMEOUT + 10)) for s in kept_alive]
    watchers += [threading.Thread(target=watch, args=(name, s, 10)) for name, s in malformed]
    for w in watchers:
        w.start()
    for w in watchers:
        w.join()
    stop_traffic.set()
    traffic.join()

    for raw, closed_after in results["slow"]:
        assert closed_after is not None and closed_after <= REQUEST_TIMEOUT + SLACK + 1, closed_after
        assert status_of(raw) == 408 and body_of(raw)["code"] == 1, raw[:200]
    for raw, closed_after in results["idle"]:
        assert closed_after is not None and IDLE_TIMEOUT - 0.5 <= closed_after <= IDLE_TIMEOUT + SLACK, closed_after
        assert raw == b""
    for raw, closed_after in results["kept alive"]:
        assert status_of(raw) == 200, raw[:200]
        assert closed_after is not None and closed_after <= IDLE_TIMEOUT + SLACK + 1, closed_after
    for name, (_, expected) in MALFORMED.items():
        for raw, closed_after in results[name]:
            assert status_of(raw) == expected and body_of(raw)["code"] == 1, (name, raw[:200])
            assert closed_after is not None and closed_after <= SLACK + 1, (name, closed_after)
    for s in slow + idle + kept_alive + [s for _, s in malformed]:
        s.close()

    assert not failures, failures[:5]
    assert served[0] >= 20
    deadline = time.monotonic() + 10
    while descriptors(proc.pid) > baseline + 5 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert descriptors(proc.pid) <= baseline + 5, (descriptors(proc.pid), baseline)
    assert proc.poll() is None, "the server died"

    metrics = requests.get(base + "/metrics", timeout=10).text

    def closed(reason):
        m = re.search(r'pushledger_http_connections_closed_total\{reason="%s"\} (\d+)' % reason, metrics)
        return int(m.group(1)) if m else 0

    assert closed("request_timeout") >= 120
    assert closed("idle_timeout") >= 160
    assert closed("malformed") >= 50 and closed("head_too_large") >= 10
    # Logged with counts, at most once a second, never a line per connection.
    lines = [json.loads(l) for l in open(log) if "refused or closed by the server" in l]
    assert lines, "nothing logged"
    times = [datetime.fromisoformat(l["ts"].replace("Z", "+00:00")).timestamp() for l in lines]
    assert all(b - a >= 0.9 for a, b in zip(times, times[1:])), [l["ts"] for l in lines]
    assert sum(int(l.get("request_timeout", 0)) for l in lines) >= 120


def channel_device(base, app):
    installation_id = "conn-" + secrets.token_hex(6)
    r = requests.post(base + "/1.1/installations", json={"deviceType": "android", "installationId": installation_id},
                      headers={"X-LC-Id": app.app_id, "X-LC-Key": app.app_key}, timeout=10)
    assert r.status_code == 201, r.text
    query = {"appId": app.app_id, "installationId": installation_id, "token": r.json()["channelToken"]}
    return base.replace("http://", "ws://") + "/channel?" + urllib.parse.urlencode(query)


def test_channel_websockets_outlive_the_http_timeouts_and_have_their_own_cap(bounded, push_app):
    _, base, _ = bounded
    urls = [channel_device(base, push_app) for _ in range(MAX_CHANNEL_CONNECTIONS + 1)]
    with contextlib.ExitStack() as stack:
        sockets = []
        for url in urls[:MAX_CHANNEL_CONNECTIONS]:
            ws = stack.enter_context(connect(url, open_timeout=10))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            sockets.append(ws)
        # One over the cap: upgraded, told why, and closed with 4503.
        with connect(urls[-1], open_timeout=10) as extra:
            frame = json.loads(extra.recv(timeout=10))
            assert frame["type"] == "error" and frame["status"] == 503, frame
            with pytest.raises(ConnectionClosed) as closed:
                extra.recv(timeout=10)
            assert closed.value.rcvd.code == 4503
        # Idle past every HTTP timeout, the devices are still connected and answer pings.
        time.sleep(REQUEST_TIMEOUT + IDLE_TIMEOUT + 1)
        for ws in sockets:
            assert ws.ping().wait(timeout=5)


def test_connections_over_the_cap_are_refused_clearly(bounded):
    _, base, _ = bounded
    held = [open_socket(base) for _ in range(MAX_CONNECTIONS + 20)]
    try:
        deadline = time.monotonic() + 10
        answered = {}
        while len(answered) < 20 and time.monotonic() < deadline:
            ready, _, _ = select.select([s for s in held if s not in answered], [], [], 1)
            for s in ready:
                answered[s] = s.recv(4096)
        assert len(answered) >= 20, len(answered)
        for raw in answered.values():
            assert status_of(raw) == 503 and body_of(raw)["code"] == 1, raw
            assert b"Retry-After: 1" in raw
        # Those not refused hold a place each: never more than the cap.
        assert len(held) - len(answered) <= MAX_CONNECTIONS
    finally:
        for s in held:
            s.close()
    # Once they are gone, ordinary requests are served again.
    deadline = time.monotonic() + 10
    while True:
        try:
            if requests.get(base + "/health", timeout=5).status_code == 200:
                break
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_a_stalled_tls_handshake_is_closed_within_the_request_timeout(server, simulator, tmp_path):
    """On a TLS port the handshake is timed like a request: a client that opens the connection and sends half a
    ClientHello (or nothing) is closed, and a real client is still served."""
    certs = os.path.dirname(simulator.ca_file)
    cert, key = os.path.join(certs, "server.pem"), os.path.join(certs, "server-key.pem")
    proc, base = start_server(server, tmp_path / "serve.stderr", "--tls-cert", cert, "--tls-key", key,
                              "--request-timeout-seconds", str(REQUEST_TIMEOUT), "--idle-timeout-seconds", "30")
    try:
        started = time.monotonic()
        silent, partial = open_socket(base), open_socket(base)
        partial.sendall(bytes.fromhex("16030100a5010000a10303"))
        for s in (silent, partial):
            _, closed_after = read_until_closed(s, started, REQUEST_TIMEOUT + 10)
            assert closed_after is not None and closed_after <= REQUEST_TIMEOUT + SLACK, closed_after
            s.close()
        r = requests.get(base.replace("http://", "https://") + "/health", verify=simulator.ca_file, timeout=10)
        assert r.json() == {"status": "ok"}
    finally:
        stop(proc)
