"""APNs keys of several teams (seed 001, SPEC §12.6, issue 45 item 4): `apns_team_id`, the installation's
`apnsTeamId` and `apnsTopic` choose the key that signs and the topic, checked on what a simulator holding both
teams' keys received (it refuses a JWT whose key and team do not match); a push whose iOS targets cannot be
told to one team is refused with code 1 naming the teams, and records nothing."""

import base64
import json
import secrets
import subprocess

import pytest
import requests

from conftest import PushApp, _json_line, _openssl_pkcs8
from test_device_channel import push, wait_record

TEAM_A = "TEAMA" + secrets.token_hex(2).upper()
TEAM_B = "TEAMB" + secrets.token_hex(2).upper()
KEY_A = "KEYA" + secrets.token_hex(3).upper()
KEY_B = "KEYB" + secrets.token_hex(3).upper()


@pytest.fixture(scope="module")
def teams(server, tmp_path_factory):
    """A simulator that takes JWTs of two teams' keys, and an app with team A as its default key (topic com.a)
    and team B under `apns_team.` (topics com.b and com.b.widget)."""
    work = tmp_path_factory.mktemp("teams")
    for name in ("a.p8", "b.p8"):
        _openssl_pkcs8(work / name, "ecparam", "-name", "prime256v1", "-genkey", "-noout")
    stderr = open(work / "simulate.stderr", "w")
    proc = subprocess.Popen(
        [server.binary, "simulate", "--host", "127.0.0.1", "--port", "0", "--cert-dir", str(work / "certs"),
         "--apns-key-file", str(work / "a.p8"), "--apns-key-id", KEY_A, "--apns-team-id", TEAM_A,
         "--apns-key-file", str(work / "b.p8"), "--apns-key-id", KEY_B, "--apns-team-id", TEAM_B],
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    stderr.close()
    try:
        info = _json_line(proc, "simulator")
        assert info is not None, (work / "simulate.stderr").read_text()[-4000:]
        app = PushApp("pyTeams" + secrets.token_hex(4), "pyTeamsKey" + secrets.token_hex(8),
                      "pyTeamsMaster" + secrets.token_hex(8))
        server.create_app("apns-teams", app.app_id, app.app_key, app.master_key)
        settings = dict(info["appSettings"])
        settings.update({
            "apns.key_file": str(work / "a.p8"), "apns.key_id": KEY_A, "apns.team_id": TEAM_A, "apns.topic": "com.a",
            "apns_team.%s.key_file" % TEAM_B: str(work / "b.p8"), "apns_team.%s.key_id" % TEAM_B: KEY_B,
            "apns_team.%s.topics" % TEAM_B: "com.b,com.b.widget",
        })
        server.cli("app", "set", "--app", app.app_id, *("%s=%s" % kv for kv in sorted(settings.items())))
        control, ca_file = info["control"], info["caFile"]

        def recorded(token):
            r = requests.get(control + "/requests", params={"token": token}, verify=ca_file, timeout=10)
            r.raise_for_status()
            return r.json()["recorded"]

        yield app, recorded
        assert proc.poll() is None, "the simulator died during the module"
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(15)


def save(server, app, **fields):
    token = secrets.token_hex(32)
    body = {"deviceType": "ios", "deviceToken": token, "channels": [fields.pop("channel")], **fields}
    r = requests.post(server.url("/installations"), json=body, headers=app.master_headers())
    assert r.status_code == 201, r.text
    return token


def signer(sent):
    """(kid, iss, apns-topic) of a recorded APNs request: which key and team signed it, and its topic."""
    jwt = sent["headers"]["authorization"].split(" ", 1)[1]
    header, claims = (json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
                      for part in jwt.split(".")[:2])
    return header["kid"], claims["iss"], sent["headers"]["apns-topic"]


def notifications(server, app):
    r = requests.get(server.url("/notifications"), params={"limit": 1000}, headers=app.master_headers())
    assert r.status_code == 200, r.text
    return len(r.json()["results"])


def refused(server, app, body, path="/push"):
    before = notifications(server, app)
    r = requests.post(server.url(path), json=body, headers=app.master_headers())
    assert r.status_code == 400 and r.json()["code"] == 1, r.text
    assert notifications(server, app) == before
    return r.json()["error"]


def test_each_device_is_signed_by_its_team_with_its_topic(server, teams):
    app, recorded = teams
    channel = "teams-" + secrets.token_hex(4)
    by_team = save(server, app, channel=channel, apnsTeamId=TEAM_B)
    by_topic_a = save(server, app, channel=channel, apnsTopic="com.a")
    by_topic_b = save(server, app, channel=channel, apnsTopic="com.b.widget")
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "hi"}})
    rec = wait_record(server, app, push_id, lambda r: r["status"] == "done")
    assert (rec["devices"], rec["successes"], rec["errors"]) == (3, 3, 0), rec
    # A team's own first topic when the installation names none; the installation's apnsTopic otherwise.
    assert [signer(s) for s in recorded(by_team)] == [(KEY_B, TEAM_B, "com.b")]
    assert [signer(s) for s in recorded(by_topic_a)] == [(KEY_A, TEAM_A, "com.a")]
    assert [signer(s) for s in recorded(by_topic_b)] == [(KEY_B, TEAM_B, "com.b.widget")]


def test_targets_that_span_teams_without_a_way_to_tell_are_refused(server, teams):
    app, recorded = teams
    channel = "teams-" + secrets.token_hex(4)
    save(server, app, channel=channel, apnsTeamId=TEAM_B)
    unknown = save(server, app, channel=channel)
    error = refused(server, app, {"channels": [channel], "data": {"alert": "hi"}})
    assert TEAM_A in error and TEAM_B in error and "apns_team_id" in error, error
    # A topic that two teams do not share tells them apart; a push's topic wins over the installations'.
    push_id = push(server, app, {"channels": [channel], "topic": "com.b", "data": {"alert": "hi"}})
    rec = wait_record(server, app, push_id, lambda r: r["status"] == "done")
    assert (rec["successes"], rec["errors"]) == (2, 0), rec
    assert [signer(s) for s in recorded(unknown)] == [(KEY_B, TEAM_B, "com.b")]
    # The same devices by their tokens: refused as well.
    error = refused(server, app, {"device_type": "ios", "device_ids": [unknown], "data": {"alert": "x"}},
                    path="/push/devices")
    assert TEAM_A in error and TEAM_B in error, error


def test_apns_team_id_chooses_the_key_for_every_device(server, teams):
    app, recorded = teams
    channel = "teams-" + secrets.token_hex(4)
    plain = save(server, app, channel=channel)
    aimed = save(server, app, channel=channel, apnsTopic="com.a")
    push_id = push(server, app, {"channels": [channel], "apns_team_id": TEAM_A, "data": {"alert": "hi"}})
    rec = wait_record(server, app, push_id, lambda r: r["status"] == "done")
    assert (rec["successes"], rec["errors"]) == (2, 0), rec
    assert [signer(s) for s in recorded(plain)] == [(KEY_A, TEAM_A, "com.a")]
    assert [signer(s) for s in recorded(aimed)] == [(KEY_A, TEAM_A, "com.a")]
    error = refused(server, app, {"channels": [channel], "apns_team_id": "NOSUCHTEAM", "data": {"alert": "x"}})
    assert "NOSUCHTEAM" in error and TEAM_A in error, error


def test_an_installation_naming_a_team_without_a_key_is_a_no_credentials_error(server, teams):
    app, recorded = teams
    channel = "teams-" + secrets.token_hex(4)
    stray = save(server, app, channel=channel, apnsTeamId="NOKEYTEAM")
    push_id = push(server, app, {"channels": [channel], "data": {"alert": "hi"}})
    rec = wait_record(server, app, push_id, lambda r: r["status"] == "done")
    assert (rec["successes"], rec["errors"]) == (0, 1), rec
    assert rec["errorReasons"] == {"NoCredentials": 1}, rec
    assert recorded(stray) == []


def test_bad_team_settings_are_refused_with_the_key_named(server, teams):
    app, _ = teams
    for setting in ["apns_team.TEAM%0A.key_id=K", "apns_team.%s.key_id=a b" % TEAM_B,
                    "apns_team.%s.topics=com.b,bad topic" % TEAM_B, "apns_team.%s.secret=x" % TEAM_B]:
        out = server.cli("app", "set", "--app", app.app_id, setting, check=False)
        assert out.returncode != 0, setting
        assert setting.split("=")[0] in out.stderr + out.stdout, (setting, out.stderr)
