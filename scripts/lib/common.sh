# Shared set-up for scripts/run, scripts/test and scripts/bench. Sourced, not executed.
# Installs what a fresh Debian 12 machine lacks, and manages a private PostgreSQL cluster.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"

log() { printf '[pushledger] %s\n' "$*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# apt packages the build and the service need (the Swift toolchain itself is assumed present), plus any
# given as arguments (scripts/test adds chromium for the html report test). PostGIS is the geo engine of the
# where language (docs/decisions.md, "Geo engine"); migration 0010 creates the extension.
ensure_packages() {
    local missing=()
    for p in libpq-dev libcurl4-openssl-dev libnghttp2-dev libssl-dev libjemalloc-dev postgresql \
        postgresql-15-postgis-3 openssl curl python3-venv nghttp2-client nghttp2-server "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        log "installing ${missing[*]}"
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [ -n "$PG_BIN" ] || { log "PostgreSQL server binaries not found"; exit 1; }
}

# json_field FILE KEY...: a value from the first JSON value in FILE, whatever follows it: the line `serve`
# and `simulate` announce themselves with before their logs (`json_field serve.out listening port`), or a
# file holding one object (`json_field var/demo-app.json appId`).
json_field() {
    python3 -c 'import json,sys
value = json.JSONDecoder().raw_decode(open(sys.argv[1]).read().lstrip())[0]
for key in sys.argv[2:]: value = value[key]
print(value)' "$@"
}

# simulator_settings FILE: the app settings `simulate` announces on FILE's first line, as `app set` takes them
# (key=value, space-separated).
simulator_settings() {
    python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline())["simulator"]["appSettings"]; print(" ".join(f"{k}={v}" for k,v in sorted(d.items())))' "$1"
}

# A port nobody listens on.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Runs a PostgreSQL binary as the cluster owner: initdb/postgres refuse to run as root.
pg_run() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Picks a directory the cluster owner can write: under the project when possible, else /tmp.
cluster_dir() {
    local wanted="$1"
    mkdir -p "$wanted"
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$wanted"
        if ! runuser -u postgres -- test -w "$wanted"; then
            wanted="$(mktemp -d /tmp/pushledger-pg.XXXXXX)"
            chown postgres:postgres "$wanted"
        fi
    fi
    echo "$wanted"
}

# start_cluster DIR PORT: initialises DIR if empty and starts PostgreSQL on 127.0.0.1:PORT, with
# PG_MAX_CONNECTIONS connections (default 200).
start_cluster() {
    local dir="$1" port="$2"
    if [ ! -f "$dir/PG_VERSION" ]; then
        pg_run "$PG_BIN/initdb" -D "$dir" -A trust -U postgres -E UTF8 --no-locale >/dev/null
    fi
    pg_run "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=${PG_MAX_CONNECTIONS:-200} -c fsync=${PG_FSYNC:-on}" start >/dev/null
}

stop_cluster() {
    local dir="$1"
    pg_run "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}

# The libpq URI of a database on the private cluster, created if missing.
ensure_database() {
    local port="$1" name="$2"
    if ! psql -h 127.0.0.1 -p "$port" -U postgres -Atc "SELECT 1 FROM pg_database WHERE datname='$name'" postgres | grep -q 1; then
        psql -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE \"$name\"" postgres
    fi
    echo "postgresql://postgres@127.0.0.1:$port/$name"
}

# SwiftPM's native build system (Swift 6.3's default) can keep a module compiled against the old layout of a
# type that another of the project's modules has changed (swiftlang/swift-package-manager#10502): the binary
# then mixes two layouts and corrupts memory at run time, a SIGSEGV or a garbage value in some unrelated test,
# which a clean build never shows (docs/decisions.md, "Builds"). So when the project's own sources differ from
# those the last build in a scratch folder saw, all of the project's own modules are compiled afresh; the
# dependencies' are kept. Usage: forget_stale_modules SCRATCH_FOLDER CONFIGURATION, before `swift build`.
forget_stale_modules() {
    local dir stamp target
    dir="$1/$(uname -m)-unknown-linux-gnu/$2"
    stamp="$(cd "$ROOT" && find Sources Tests Benchmarks Package.swift Package.resolved -type f -print0 |
        sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    if [ -d "$dir" ] && [ "$(cat "$dir/own-sources.sha256" 2>/dev/null)" != "$stamp" ]; then
        log "the project's sources changed since the last build in $1: its own modules are built afresh"
        # Every target of the manifest, and the test runner modules SwiftPM derives from the package's name.
        for target in $(cd "$ROOT" && swift package --scratch-path "$1" dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
names = [t["name"].replace("-", "_") for t in package["targets"]]
print(" ".join(names + [package["name"] + "PackageTests", package["name"] + "PackageDiscoveredTests"]))'); do
            rm -rf "${dir:?}/$target.build"
        done
    fi
    mkdir -p "$dir"
    echo "$stamp" > "$dir/own-sources.sha256"
}

build_release() {
    # A binary built already (e.g. scripts/test's .build-test/release/pushledger) may stand in for the build.
    if [ -n "${PUSHLEDGER_BIN:-}" ]; then echo "$PUSHLEDGER_BIN"; return; fi
    log "building (the first build takes several minutes)"
    forget_stale_modules "$ROOT/.build" release
    (cd "$ROOT" && swift build -c release --product pushledger 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -n 3) >&2
    echo "$ROOT/.build/release/pushledger"
}
