"""Run last: after everything the suite did, the projections must equal a rebuild from the event log."""

import pytest


@pytest.mark.last
def test_rebuild_verify_after_session(server):
    assert server.event_count() > 0
    done = server.cli("rebuild", "--verify", check=False)
    assert done.returncode == 0, "rebuild --verify exited %d:\n%s\n%s" % (
        done.returncode, done.stdout[-4000:], done.stderr[-4000:])
