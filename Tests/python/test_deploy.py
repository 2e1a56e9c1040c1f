"""Static checks of the deployment files (deploy/): the systemd unit and the container image recipe.

The unit is checked by `systemd-analyze verify` (and `security`) when systemd-analyze is installed (Debian
package `systemd`), on a temporary copy whose ExecStart names the built binary, since /usr/local/bin/pushledger
need not exist here. The Dockerfile is parsed: it must build in one stage and run in another that holds no Swift
toolchain, as a user other than root. Where PUSHLEDGER_BIN is set, the flags the files pass to `serve` are
checked against the binary's own `serve --help`.
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "pushledger.service"
DOCKERFILE = REPO / "deploy" / "Dockerfile"
INSTALLED_BINARY = "/usr/local/bin/pushledger"


def built_binary():
    """The binary the suite runs (PUSHLEDGER_BIN), else a local build, else None."""
    candidates = [os.environ.get("PUSHLEDGER_BIN")] + [
        str(REPO / p / "pushledger") for p in (".build-test/release", ".build/release", ".build/debug")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    return None


def serve_flags(binary):
    """The long options `pushledger serve --help` lists."""
    done = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", done.stdout))


# ---------------------------------------------------------------------------------------------------------
# systemd unit

def unit_directives(text):
    """{(section, key): [values]} of a unit file (comments and blank lines skipped)."""
    directives, section = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, sep, value = line.partition("=")
        assert sep, "not a KEY=value line: %r" % raw
        directives.setdefault((section, key.strip()), []).append(value.strip())
    return directives


def test_unit_has_the_required_settings():
    d = unit_directives(UNIT.read_text(encoding="utf-8"))

    def one(key, section="Service"):
        values = d.get((section, key))
        assert values and len(values) == 1, "%s= in [%s]: %r" % (key, section, values)
        return values[0]

    assert one("Type") == "simple"
    assert one("User") == "pushledger"
    assert one("Group") == "pushledger"
    assert one("EnvironmentFile") == "-/etc/pushledger/pushledger.env"
    exec_start = shlex.split(one("ExecStart"))
    assert exec_start[:2] == [INSTALLED_BINARY, "serve"], exec_start
    assert one("Restart") == "on-failure"
    assert one("KillSignal") == "SIGTERM"
    assert one("TimeoutStopSec") == "15"
    assert one("ProtectSystem") == "strict"
    for key in ("NoNewPrivileges", "PrivateTmp", "ProtectHome", "PrivateDevices", "RestrictSUIDSGID"):
        assert one(key) == "yes", key
    assert one("CapabilityBoundingSet") == "", "the service needs no capability"
    assert one("WantedBy", "Install") == "multi-user.target"
    assert "Description" in {k for (s, k) in d if s == "Unit"}


def _unit_copy(tmp_path, binary):
    """The unit with ExecStart pointing at a binary that exists here."""
    text = UNIT.read_text(encoding="utf-8")
    assert text.count("ExecStart=" + INSTALLED_BINARY + " ") == 1
    copy = tmp_path / "pushledger.service"
    copy.write_text(text.replace("ExecStart=" + INSTALLED_BINARY + " ", "ExecStart=" + binary + " "), encoding="utf-8")
    return copy


def _systemd_analyze():
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (Debian: apt-get install systemd)")
    return tool


def test_unit_passes_systemd_analyze_verify(tmp_path):
    tool = _systemd_analyze()
    # Without a build, any executable shows that the rest of the unit is sound.
    binary = built_binary() or shutil.which("true")
    copy = _unit_copy(tmp_path, binary)
    done = subprocess.run([tool, "verify", "--man=no", str(copy)], capture_output=True, text=True, timeout=60)
    # verify exits 0 on unknown keys and unparsable values, with a warning naming the file: those fail here too.
    about_unit = [line for line in (done.stdout + done.stderr).splitlines() if copy.name in line]
    assert done.returncode == 0 and not about_unit, "systemd-analyze verify:\n%s%s" % (done.stdout, done.stderr)


def test_unit_sandboxing_exposure_is_low(tmp_path):
    """`systemd-analyze security` rates the unit's exposure 0-10; the sandboxing must keep it at most 3."""
    tool = _systemd_analyze()
    copy = _unit_copy(tmp_path, built_binary() or shutil.which("true"))
    done = subprocess.run([tool, "security", "--offline=true", "--no-pager", str(copy)],
                          capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", done.stdout + done.stderr)
    if m is None:
        pytest.skip("this systemd-analyze has no offline security rating: %s" % (done.stderr.strip()[:200]))
    assert float(m.group(1)) <= 3.0, done.stdout


def test_unit_environment_variables_are_read_by_serve():
    """The variables the unit's comments tell operators to set are ones `serve` reads (its help names them)."""
    binary = built_binary()
    if binary is None:
        pytest.skip("no built pushledger binary (set PUSHLEDGER_BIN)")
    done = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    documented = re.findall(r"^#\s+([A-Z][A-Z0-9_]*)=", UNIT.read_text(encoding="utf-8"), re.M)
    assert "DATABASE_URL" in documented, documented
    unknown = [name for name in documented if not re.search(r"\b%s\b" % name, done.stdout)]
    assert not unknown, "serve --help names none of %s:\n%s" % (unknown, done.stdout)


# ---------------------------------------------------------------------------------------------------------
# Dockerfile

def dockerfile_instructions(text):
    """[(INSTRUCTION, arguments)] with line continuations joined and comments dropped."""
    logical, current = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if current and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        logical.append(current)
        current = ""
    assert not current, "the Dockerfile ends inside a continued line"
    out = []
    for line in logical:
        instruction, _, args = line.partition(" ")
        out.append((instruction.upper(), args.strip()))
    return out


def dockerfile_stages(text):
    """[(base image with ARG defaults substituted, stage name, [(INSTRUCTION, args)])]."""
    args, stages = {}, []
    for instruction, rest in dockerfile_instructions(text):
        if instruction == "ARG" and not stages:
            name, _, default = rest.partition("=")
            args[name.strip()] = default.strip()
        elif instruction == "FROM":
            words = [w for w in rest.split() if not w.startswith("--platform")]
            image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), words[0])
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            stages.append((image, name, []))
        else:
            assert stages or instruction == "ARG", "%s before the first FROM" % instruction
            if stages:
                stages[-1][2].append((instruction, rest))
    return stages


@pytest.fixture(scope="module")
def stages():
    return dockerfile_stages(DOCKERFILE.read_text(encoding="utf-8"))


def test_dockerfile_is_multi_stage(stages):
    assert len(stages) >= 2, "want a build stage and a runtime stage, got %d FROM" % len(stages)


def test_dockerfile_builds_with_swift_in_release_mode(stages):
    image, name, body = stages[0]
    assert re.match(r"swift:6(\.\d+)*(-|$)", image), "build stage base: %s" % image
    assert name, "the build stage needs a name for COPY --from"
    runs = " ".join(args for instruction, args in body if instruction == "RUN")
    assert "swift build -c release" in runs, runs
    # Without the Swift runtime linked in, the binary would need the toolchain's shared libraries at run time.
    assert "--static-swift-stdlib" in runs, runs
    for package in ("libpq-dev", "libcurl4-openssl-dev", "libnghttp2-dev", "libssl-dev", "libjemalloc-dev"):
        assert re.search(r"\b%s\b" % re.escape(package), runs), "build stage does not install %s" % package


def test_dockerfile_runtime_stage_has_no_toolchain(stages):
    image, _, body = stages[-1]
    assert image.startswith("debian:bookworm"), image
    assert "swift" not in image
    for instruction, args in body:
        assert not re.search(r"swift", args, re.I), "runtime stage mentions swift: %s %s" % (instruction, args)
        if instruction in ("COPY", "ADD"):
            m = re.search(r"--from=(\S+)", args)
            if m:
                sources = [a for a in args.split() if not a.startswith("--")][:-1]
                for src in sources:
                    assert not src.startswith(("/usr/bin", "/usr/lib", "/usr/share/swift", "/opt")), (
                        "runtime stage copies toolchain files: %s" % args)
    installs = " ".join(args for instruction, args in body if instruction == "RUN")
    for package in ("libcurl4", "libnghttp2-14", "libssl3", "libjemalloc2", "libpq5", "ca-certificates"):
        assert re.search(r"\b%s\b" % re.escape(package), installs), "runtime stage does not install %s" % package
    # The SwiftPM resource bundles (migrations, report definitions) must travel with the binary.
    copies = [args for instruction, args in body if instruction == "COPY" and "--from=" in args]
    assert copies, "the runtime stage copies nothing from the build stage"


def test_dockerfile_runs_as_non_root(stages):
    users = [args for instruction, args in stages[-1][2] if instruction == "USER"]
    assert users, "the runtime stage has no USER line"
    user = users[-1].split(":")[0].strip()
    assert user not in ("root", "0", ""), "runs as %r" % users[-1]


def test_dockerfile_serves_on_all_interfaces_port_8080(stages):
    body = stages[-1][2]
    assert ("EXPOSE", "8080") in body
    entrypoints = [args for instruction, args in body if instruction == "ENTRYPOINT"]
    assert entrypoints, "no ENTRYPOINT"
    import json

    entrypoint = json.loads(entrypoints[-1])  # exec form, so that SIGTERM reaches pushledger itself
    assert pathlib.PurePosixPath(entrypoint[0]).name == "pushledger" and entrypoint[1] == "serve", entrypoint
    assert entrypoint[2:4] == ["--host", "0.0.0.0"], entrypoint
    binary = built_binary()
    if binary is not None:
        flags = serve_flags(binary)
        for flag in (a for a in entrypoint[2:] if a.startswith("--")):
            assert flag in flags, "%s is not a serve flag" % flag
