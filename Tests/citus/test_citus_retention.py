"""The retention job on a distributed database (run last: it ages every app of the session): installations past
their TTL expire as events, finished days close, and the projections stay a rebuild of the log."""

import datetime
import json
import secrets

import requests


def test_retention_expires_and_closes_days_then_rebuild_verifies(server):
    app_id, key, master = "ret" + secrets.token_hex(3), "k" + secrets.token_hex(6), "m" + secrets.token_hex(6)
    server.create_app("retention", app_id, key, master)
    headers = {"X-LC-Id": app_id, "X-LC-Key": master + ",master", "Content-Type": "application/json"}
    ids = []
    for _ in range(3):
        r = requests.post(server.url("/installations"), data=json.dumps(
            {"deviceType": "ios", "deviceToken": secrets.token_hex(32)}), headers=headers, timeout=10)
        assert r.status_code == 201, r.text
        ids.append(r.json()["objectId"])
    # A year on, past the default installation TTL (SPEC §8): as the retention job of that day sees it.
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=400)).isoformat(
        timespec="seconds").replace("+00:00", "Z")
    done = json.loads(server.cli("retention", "run", "--now", later).stdout.strip().splitlines()[-1])
    assert done["expiredInstallations"] >= 3, done
    for object_id in ids:
        assert requests.get(server.url("/installations/" + object_id), headers=headers, timeout=10).status_code == 404
    expired = int(server.sql("SELECT count(*) FROM events WHERE app_id = '%s' AND type = 'InstallationExpired'"
                             % app_id))
    assert expired == 3
    # Running it again finds nothing more to do for them.
    again = json.loads(server.cli("retention", "run", "--now", later).stdout.strip().splitlines()[-1])
    assert again["expiredInstallations"] == 0, again
    verified = server.cli("rebuild", "--verify", check=False)
    assert verified.returncode == 0, (verified.stdout + verified.stderr)[-4000:]
