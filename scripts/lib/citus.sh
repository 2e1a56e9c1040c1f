# A throw-away Citus cluster on loopback for scripts/test-citus and scripts/bench-citus: a coordinator and
# two workers, each its own PostgreSQL cluster on a free port. Sourced after common.sh, not executed.
# Needs CITUS_PG_BIN: the bin folder of a PostgreSQL installation whose library folder holds Citus (and
# PostGIS, which migration 0010 creates). Citus itself is not installed by this project.

CITUS_NODES=(coordinator worker1 worker2)

# citus_check BIN: fails loudly unless BIN is a PostgreSQL bin folder with Citus beside it.
citus_check() {
    local bin="$1"
    [ -n "$bin" ] || { log "PUSHLEDGER_CITUS_PG_BIN is not set: point it at the bin folder of a PostgreSQL with Citus"; exit 2; }
    [ -x "$bin/postgres" ] && [ -x "$bin/pg_config" ] || { log "$bin holds no postgres and pg_config"; exit 2; }
    local lib
    lib="$("$bin/pg_config" --pkglibdir)"
    [ -f "$lib/citus.so" ] || { log "no Citus in $lib (citus.so is missing)"; exit 2; }
}

# citus_start DIR BIN: a coordinator and two workers under DIR (DIR/<node>, ports in DIR/<node>.port). Nodes
# talk without TLS (Citus would otherwise turn TLS on and make certificates of its own), and every node may
# run distributed statements (Citus' metadata is synced to the workers, as the stream-head trigger needs).
citus_start() {
    local dir="$1" bin="$2" node port
    for node in "${CITUS_NODES[@]}"; do
        port="$(free_port)"
        echo "$port" > "$dir/$node.port"
        mkdir -p "$dir/$node"
        if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir/$node"; fi
        pg_run "$bin/initdb" -D "$dir/$node" -A trust -U postgres -E UTF8 --no-locale >/dev/null
        cat >> "$dir/$node/postgresql.conf" <<EOF
shared_preload_libraries = 'citus'
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/$node'
max_connections = ${PG_MAX_CONNECTIONS:-400}
max_prepared_transactions = 200
citus.node_conninfo = 'sslmode=disable'
fsync = ${PG_FSYNC:-on}
EOF
        pg_run "$bin/pg_ctl" -D "$dir/$node" -l "$dir/$node.log" -w -t 60 start >/dev/null
    done
}

citus_stop() {
    local dir="$1" bin="$2" node
    for node in "${CITUS_NODES[@]}"; do
        [ -d "$dir/$node" ] && pg_run "$bin/pg_ctl" -D "$dir/$node" -m fast -w stop >/dev/null 2>&1 || true
    done
}

citus_port() { cat "$1/$2.port"; }

# citus_database DIR NAME: database NAME on every node, with Citus (and PostGIS) in each and the workers
# registered with the coordinator; prints the coordinator's URL of it. A Citus cluster is one database: its
# nodes are registered per database.
citus_database() {
    local dir="$1" name="$2" node port coordinator
    coordinator="$(citus_port "$dir" coordinator)"
    for node in "${CITUS_NODES[@]}"; do
        port="$(citus_port "$dir" "$node")"
        psql -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE \"$name\"" postgres
        psql -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE EXTENSION citus; CREATE EXTENSION postgis" "$name"
    done
    psql -h 127.0.0.1 -p "$coordinator" -U postgres -qAtc \
        "SELECT citus_set_coordinator_host('127.0.0.1', $coordinator)" "$name" >/dev/null
    for node in worker1 worker2; do
        psql -h 127.0.0.1 -p "$coordinator" -U postgres -qAtc \
            "SELECT citus_add_node('127.0.0.1', $(citus_port "$dir" "$node"))" "$name" >/dev/null
    done
    echo "postgresql://postgres@127.0.0.1:$coordinator/$name"
}
