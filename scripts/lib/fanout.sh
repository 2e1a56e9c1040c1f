# The fan-out benchmarks' common set-up (scripts/bench-fanout, scripts/bench-fanout-ab). Sourced after
# common.sh, not executed.

# fanout_setup BIN N [fcm]: a throw-away cluster with a log of LOG_DAYS (90) days' partitions, the app `bench`
# (master key `benchmaster`) whose APNs settings point at a simulator started here (no JWT verification, recording
# or injected errors, so that its CPU per request is what a raw ceiling sees), and N iOS installations in
# channel `all`; with `fcm`, also FCM settings (a service account made here, project `bench-project`) and N
# Android installations with a registration id in channel `fcm`. All projected by `rebuild`, the database then
# settled (fanout_settle). Sets WORK, PG_DIR, DATABASE_URL, SIMULATOR, SIM_PORT and PIDS, and a trap that ends
# the simulator and any pid added to PIDS, stops the cluster and removes WORK.
fanout_setup() {
    local bin="$1" n="$2" with="${3:-}" pg_port settings
    WORK="$(mktemp -d /tmp/pushledger-fanout.XXXXXX)"
    chmod 755 "$WORK"
    PG_DIR="$(cluster_dir "$WORK/pg")"
    pg_port="$(free_port)"
    PIDS=()
    trap fanout_cleanup EXIT
    start_cluster "$PG_DIR" "$pg_port"
    export DATABASE_URL="$(ensure_database "$pg_port" fanout)"
    "$bin" migrate >/dev/null
    # A log kept 90 days (or longer: `--log-retention-days` is 0 by default) has a partition per day: made
    # here, empty, so that what PostgreSQL does per partition (planning, locking) costs what it costs in
    # such a database. A fresh one had only today's and the days ahead. LOG_DAYS=1095 is a log of three years.
    psql -q "$DATABASE_URL" -c "SELECT pushledger_event_partition(d::date)
        FROM generate_series(current_date - ${LOG_DAYS:-90}, current_date - 1, interval '1 day') AS d" >/dev/null
    "$bin" app create --name bench --id bench --key benchkey --master-key benchmaster >/dev/null

    "$bin" simulate --cert-dir "$WORK/certs" --no-recording --no-default-rules > "$WORK/sim.json" &
    SIMULATOR=$!
    PIDS+=($SIMULATOR)
    for _ in $(seq 1 100); do [ -s "$WORK/sim.json" ] && break; sleep 0.1; done
    SIM_PORT="$(json_field "$WORK/sim.json" simulator port)"
    settings="$(simulator_settings "$WORK/sim.json")"
    openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$WORK/apns.p8"
    # shellcheck disable=SC2086
    "$bin" app set --app bench $settings "apns.key_file=$WORK/apns.p8" apns.key_id=BENCHKEY01 \
        apns.team_id=BENCHTEAM1 apns.topic=com.example.bench >/dev/null
    if [ "$with" = fcm ]; then
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/fcm.key" 2>/dev/null
        python3 -c 'import json,sys; print(json.dumps({"type": "service_account", "project_id": "bench-project",
            "client_email": "bench@bench-project.iam.gserviceaccount.com", "private_key": open(sys.argv[1]).read(),
            "token_uri": "https://oauth2.googleapis.com/token"}))' "$WORK/fcm.key" > "$WORK/fcm.json"
        "$bin" app set --app bench "fcm.service_account_file=$WORK/fcm.json" >/dev/null
    fi

    log "loading $n installations into the log, then projecting them with pushledger rebuild"
    psql -q "$DATABASE_URL" -c "
    INSERT INTO events (app_id, stream, version, type, data, metadata)
    SELECT 'bench', 'installation:' || lpad(to_hex(g), 24, '0'), 1, 'InstallationCreated',
           jsonb_build_object('objectId', lpad(to_hex(g), 24, '0'), 'createdAt', now()::text, 'updatedAt', now()::text,
               'fields', jsonb_build_object('deviceType', 'ios', 'deviceToken', lpad(to_hex(g), 64, '0'),
                                            'channels', jsonb_build_array('all'))),
           '{\"keyKind\":\"system\",\"userAgent\":\"bench-fanout\"}'
    FROM generate_series(1, $n) g"
    if [ "$with" = fcm ]; then
        psql -q "$DATABASE_URL" -c "
        INSERT INTO events (app_id, stream, version, type, data, metadata)
        SELECT 'bench', 'installation:f' || lpad(to_hex(g), 23, '0'), 1, 'InstallationCreated',
               jsonb_build_object('objectId', 'f' || lpad(to_hex(g), 23, '0'), 'createdAt', now()::text,
                   'updatedAt', now()::text,
                   'fields', jsonb_build_object('deviceType', 'android', 'installationId', 'bench-' || g,
                       'registrationId', 'fcm' || lpad(to_hex(g), 60, '0'), 'channels', jsonb_build_array('fcm'))),
               '{\"keyKind\":\"system\",\"userAgent\":\"bench-fanout\"}'
        FROM generate_series(1, $n) g"
    fi
    log "$("$bin" rebuild)"
    fanout_settle
}

# fanout_settle: vacuums and analyzes the whole database and writes a checkpoint, so that neither autovacuum's
# pass over the rows a bulk load leaves behind (a million events and installations) nor the writing out of
# their dirty pages is charged to whatever is measured next. A database that has served for a while is
# settled like this; left unsettled, autovacuum works through the set-up's rows during the measured push or
# during the ceilings, and is charged to them.
fanout_settle() {
    psql -q "$DATABASE_URL" -c "VACUUM ANALYZE" -c "CHECKPOINT"
}

fanout_cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    stop_cluster "$PG_DIR"
    # KEEP_WORK=1 keeps the logs (serve.err, sim.json) and the stopped cluster, to look into a run that failed.
    if [ "${KEEP_WORK:-0}" = 1 ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}

# fanout_serve BIN [TRANSPORT]: starts `serve` from BIN on a free port (through TRANSPORT, `serve --transport`, when
# given); sets SERVER (its pid, also in PIDS) and PORT.
fanout_serve() {
    local transport=()
    [ -n "${2:-}" ] && transport=(--transport "$2")
    "$1" serve --host 127.0.0.1 --port 0 "${transport[@]}" > "$WORK/serve.out" 2> "$WORK/serve.err" &
    SERVER=$!
    PIDS+=($SERVER)
    for _ in $(seq 1 100); do [ -s "$WORK/serve.out" ] && break; sleep 0.1; done
    PORT="$(json_field "$WORK/serve.out" listening port)"
}

# fanout_push: one push to channel `all` through the server of fanout_serve, awaited until its record leaves
# "in-queue". Prints "WALL SUCCESSES,DEVICES,ERRORS PEAK_RSS_KIB SERVER_US,POSTGRES_US,SIMULATOR_US,DRIVERS_US"
# (CPU per delivered device; DRIVERS_US is the part of SERVER_US spent by the transport's curl-driver or h2-driver
# threads) from
# scripts/bench/fanout_push.py.
fanout_push() {
    python3 "$ROOT/scripts/bench/fanout_push.py" "$PORT" "$SERVER" "$(head -n 1 "$PG_DIR/postmaster.pid")" "$SIMULATOR"
}
