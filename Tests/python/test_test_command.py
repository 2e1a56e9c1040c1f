"""A plain `swift test` cannot pass by skipping the database suites (issue 46 item 5): run without the test
cluster's variables, each suite marked `.requiresPostgreSQL` or `.requiresPSQL` fails with a message saying how to
run it, and the run exits non-zero, while the pure suites beside them still run and pass. Two targets are run:
PostgresTests (three database suites beside PGQueryTests) and PushCore's where compiler (one suite needing psql
beside pure ones)."""

import os
import pathlib
import re
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]


def swift_test(filter_expression, env):
    """`swift test` with the build scripts/test made (PUSHLEDGER_BIN is <scratch>/<configuration>/pushledger)."""
    binary = pathlib.Path(os.environ["PUSHLEDGER_BIN"])
    configuration, scratch = binary.parent.name, binary.parent.parent
    command = [
        "swift", "test", "-c", configuration, "-Xswiftc", "-enable-testing", "--scratch-path", str(scratch),
        "--skip-build", "--filter", filter_expression,
    ]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def without_cluster():
    env = dict(os.environ)
    env.pop("PUSHLEDGER_TEST_PG", None)
    env.pop("PUSHLEDGER_TEST_PSQL_URL", None)
    return env


def database_suites_in(folder):
    """The suites of a test folder that carry a database trait, counted from the sources, not from the run."""
    count = 0
    for path in (REPO / "Tests" / folder).glob("*.swift"):
        count += len(re.findall(r"@Suite\([^\n]*\.requires(PostgreSQL|PSQL)\b", path.read_text()))
    return count


def test_database_suites_fail_with_how_to_run_them_when_no_cluster_is_set():
    expected = database_suites_in("PostgresTests")
    assert expected == 3
    done = swift_test("PostgresTests", without_cluster())
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-2000:]
    failures = re.findall(r"✘ Suite .* recorded an issue .*PUSHLEDGER_TEST_PG is not set.*Run scripts/test", output)
    assert len(failures) == expected, output[-3000:]
    assert re.search(r'✔ Suite "PGQuery and value encoding" passed', output), output[-3000:]
    assert re.search(r"failed after .* with %d issues" % expected, output), output[-3000:]


def test_a_psql_suite_fails_beside_passing_pure_suites():
    done = swift_test("PushCoreTests.WhereCompiler", without_cluster())
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-2000:]
    assert re.search(r"✘ Suite WhereCompilerDatabaseTests recorded an issue .*PUSHLEDGER_TEST_PSQL_URL is not set", output)
    # WhereCompilerTests and the compiler's other pure suites ran beside it.
    assert re.search(r"✔ Test .* passed", output), output[-3000:]


def test_with_the_cluster_the_same_suites_pass():
    done = swift_test("PostgresTests", dict(os.environ))
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "is not set" not in output
