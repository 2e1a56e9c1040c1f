"""Stored events stay readable (issue 46's acceptance for the typed event log): a database made by the binary of
2026-12-03 (commit dbdf6bd, before the event log was typed) is restored, migrated by today's binary and
rebuilt with `rebuild --verify`, which must find today's projections of those events identical to the ones
that binary wrote.

How the fixture was made, once (regenerating it with a later binary would defeat its purpose): the session
database of test_sdk_installations, test_sdk_push, test_sdk_users, test_notification_merge, test_sdk_channel,
test_classes, test_payload_keys, test_device_channel and test_zz_rebuild; then `retention run --now` eight days
ahead (every finished push record purged); then, through `serve` and the simulator, an app with a daily quota
of 3 (a badge `Increment` push stopped at the quota, three refused), an app whose APNs key id the simulator
refuses (the push fails), an own-channel device with `channel.max_pending=1` and a one-day installation TTL
(messages dropped), an app with `push_rate_per_minute=1` (rate limited); then `retention run --now` two days
ahead (the TTL-1 installation expired, days closed). The counts below are psql's over that database."""

import gzip
import pathlib
import re
import secrets
import subprocess

import pytest

from conftest import database_url, psql

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "ledger-2026-12-03.sql.gz"
EVENTS = 5457
KINDS = {
    "AppCreated": 15, "AppOpened": 1, "AppSettingsChanged": 10, "BadgeIncremented": 3, "BadgeReset": 1,
    "DeviceConnected": 2009, "DeviceDisconnected": 8, "InstallationCreated": 1068, "InstallationDeleted": 1,
    "InstallationExpired": 1, "InstallationInvalidated": 2, "InstallationUpdated": 2014, "NotificationDeleted": 2,
    "NotificationPurged": 30, "ObjectCreated": 17, "ObjectDeleted": 4, "ObjectUpdated": 3,
    "PushBatchDelivered": 39, "PushCancelled": 2, "PushChannelAcked": 48, "PushChannelDropped": 2,
    "PushChannelExpired": 3, "PushCompleted": 33, "PushExpired": 2, "PushFailed": 1, "PushQuotaReached": 1,
    "PushQuotaRefused": 3, "PushRateLimited": 1, "PushRequested": 38, "PushTargeted": 33,
    "PushTargetingCompleted": 34, "UsageDayClosed": 10, "UserSignedUp": 15, "UserUpdated": 3,
}


@pytest.fixture
def restored(server):
    """The fixture restored into a database of its own (from template1, which has PostGIS)."""
    name = "pushledger_fixture_" + secrets.token_hex(4)
    admin = database_url(server.database_url, "postgres")
    psql(admin, 'CREATE DATABASE "%s"' % name)
    url = database_url(server.database_url, name)
    try:
        done = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-q"], input=gzip.decompress(
            FIXTURE.read_bytes()), capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        yield url
    finally:
        psql(admin, 'DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name)


def test_every_kind_of_event_the_fixture_holds_is_there(restored):
    rows = psql(restored, "SELECT type || '=' || count(*) FROM events GROUP BY type ORDER BY type").splitlines()
    assert dict((kind, int(count)) for kind, count in (row.split("=") for row in rows)) == KINDS
    assert sum(KINDS.values()) == EVENTS


def test_todays_binary_migrates_it_and_rebuilds_identical_projections(server, restored):
    migrated = subprocess.run([server.binary, "migrate"], capture_output=True, text=True, timeout=300,
                              env={"DATABASE_URL": restored, "PATH": "/usr/bin:/bin"})
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    verified = subprocess.run([server.binary, "rebuild", "--verify"], capture_output=True, text=True, timeout=300,
                              env={"DATABASE_URL": restored, "PATH": "/usr/bin:/bin"})
    assert verified.returncode == 0, (verified.stdout + verified.stderr)[-4000:]
    assert re.search(r"verified: %d events rebuilt into projections identical to the live tables" % EVENTS,
                     verified.stdout + verified.stderr), verified.stdout[-2000:]
