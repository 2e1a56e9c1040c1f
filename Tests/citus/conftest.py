"""Fixtures of the Citus suites, which `scripts/test-citus` runs on a coordinator and two workers (not part of
`scripts/test`: CI has no Citus). They are the Python SDK suites' own (Tests/python/conftest.py, loaded here under
another name), whose session database is distributed by `pushledger distribute` when
PUSHLEDGER_TEST_CITUS_WORKERS names the workers."""

import importlib.util
import os
import pathlib

import pytest

_SHARED = pathlib.Path(__file__).resolve().parents[1] / "python" / "conftest.py"
_spec = importlib.util.spec_from_file_location("pushledger_sdk_conftest", _SHARED)
shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shared)
globals().update({name: value for name, value in vars(shared).items() if not name.startswith("__")})


def pytest_sessionstart(session):
    if not shared.citus_workers():
        pytest.exit("PUSHLEDGER_TEST_CITUS_WORKERS is not set: run scripts/test-citus", returncode=1)
