import Postgres
import PushCore

/// The rebuild of `installations` and `invalid_tokens` as statements over the whole log.
extension InstallationProjection: LogFoldingProjection {
    public var eventTypes: [String] { InstallationFold.eventTypes }

    public func fold(into schema: String, apps: [String], on conn: PGConnection) async throws {
        try await foldInstallations(into: schema, apps: apps, on: conn)
        try await foldInvalidTokens(into: schema, apps: apps, on: conn)
    }

    /// Each installation stream folded as `apply` folds it, in one statement. Most streams are a lone
    /// InstallationCreated, or one followed only by touches (opens, badge resets and increments: by far the most
    /// common later events); those rows are made straight from the creation and a summary of the touches — the
    /// last badge given, the last `updatedAt` given, the last version — as `touchAll` applies a run of touches.
    /// Only the other streams go through `installation_replay_fold` (migration 0004), the ordered aggregate whose
    /// steps are `apply`'s branches, as replay folds one app.
    ///
    /// What the shortcut rests on, as the log is written: a stream's versions run from 1 in log order, and an
    /// installation stream holds only installation events, so one whose later events are all touches and begin
    /// after version 1 began with its creation. (A second InstallationCreated is never appended to a stream
    /// without a removal in between: `apply` would fail on it with a duplicate key, and so does the rebuild, when
    /// it makes the primary key again.) `LogFoldTests` prove the statement equal to `apply` event by event.
    private func foldInstallations(into schema: String, apps: [String], on conn: PGConnection) async throws {
        let laterTypes = eventTypes.filter { $0 != InstallationEvent.created }
        let touchTypes = [InstallationEvent.badgeReset, InstallationEvent.badgeIncremented, InstallationEvent.opened]
        // Hash joins: the statement joins every installation event with a set the planner cannot estimate, where
        // a nested loop is quadratic and a merge join sorts the whole log. Only for this statement: the others
        // find rare events by index, through nested loops. (A failure rolls the settings back with the rest.)
        try await conn.execute(unsafeScript: "SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off")
        // Each field is read from an event once, in a subquery kept apart by OFFSET 0 (PostgreSQL would otherwise
        // copy the expressions into every place that uses them): the touches' sort then carries a few narrow columns
        // instead of each event's whole data (it stays in memory), and a creation's `updatedAt`, nearly always its
        // `createdAt`, is parsed only when it differs.
        try await conn.query(
            """
            WITH later AS MATERIALIZED (
                SELECT app_id, object_id, bool_and(touch) AND min(version) > 1 AS touched_after_creation,
                    max(version) AS version,
                    (array_agg(badge ORDER BY version DESC) FILTER (WHERE badge IS NOT NULL))[1] AS badge,
                    (array_agg(updated_at ORDER BY version DESC) FILTER (WHERE updated_at IS NOT NULL))[1] AS updated_at
                FROM (SELECT app_id, data ->> 'objectId' AS object_id, version,
                          type = ANY(\(touchTypes)::text[]) AS touch,
                          CASE WHEN type = \(InstallationEvent.badgeReset) THEN '0'::jsonb
                               WHEN coalesce(data -> 'badge', 'null'::jsonb) <> 'null'::jsonb THEN data -> 'badge' END
                              AS badge,
                          CASE WHEN type = ANY(\(touchTypes)::text[]) THEN (data ->> 'updatedAt')::timestamptz END
                              AS updated_at
                      FROM events
                      WHERE app_id = ANY(\(apps)::text[]) AND type = ANY(\(laterTypes)::text[])
                        AND jsonb_typeof(data -> 'objectId') = 'string'
                      OFFSET 0) t
                GROUP BY app_id, object_id),
            created AS (
                INSERT INTO \(unsafeRaw: schema).installations (app_id, object_id, data, created_at, updated_at, version)
                SELECT e.app_id, e.object_id,
                    CASE WHEN l.badge IS NULL THEN coalesce(e.fields, '{}'::jsonb)
                         ELSE jsonb_set(coalesce(e.fields, '{}'::jsonb), '{badge}', l.badge) END,
                    e.created_at,
                    coalesce(l.updated_at, CASE WHEN e.unchanged THEN e.created_at ELSE e.updated_text::timestamptz END),
                    coalesce(l.version, e.version)
                FROM (SELECT app_id, object_id, fields, created_text::timestamptz AS created_at,
                          updated_text = created_text AS unchanged, updated_text, version
                      FROM (SELECT app_id, data ->> 'objectId' AS object_id, data -> 'fields' AS fields,
                                data ->> 'createdAt' AS created_text, data ->> 'updatedAt' AS updated_text, version
                            FROM events
                            WHERE app_id = ANY(\(apps)::text[]) AND type = \(InstallationEvent.created)
                              AND jsonb_typeof(data -> 'objectId') = 'string'
                            OFFSET 0) r
                      OFFSET 0) e
                LEFT JOIN later l ON l.app_id = e.app_id AND l.object_id = e.object_id
                WHERE l.object_id IS NULL OR l.touched_after_creation)
            INSERT INTO \(unsafeRaw: schema).installations (app_id, object_id, data, created_at, updated_at, version)
            SELECT app_id, object_id, (s).data, (s).created_at, (s).updated_at, (s).version
            FROM (SELECT e.app_id, e.data ->> 'objectId' AS object_id,
                      installation_replay_fold(e.type, e.data, e.version ORDER BY e.transaction_id, e.position) AS s
                  FROM events e JOIN later l ON l.app_id = e.app_id AND l.object_id = e.data ->> 'objectId'
                  WHERE e.app_id = ANY(\(apps)::text[]) AND e.type = ANY(\(eventTypes)::text[])
                    AND NOT l.touched_after_creation
                  GROUP BY e.app_id, e.data ->> 'objectId') f
            WHERE (s).data IS NOT NULL
            """)
        try await conn.execute(unsafeScript: "RESET enable_nestloop; RESET enable_mergejoin")
    }

    /// `apply` upserts a token's row at each invalidation and deletes it when a save registers the token again
    /// after the time it was found invalid; so a token keeps the row of its last invalidation unless a later
    /// save forgave it. Logs without invalidations cost one look for them: the join over the saves stops at its
    /// empty side.
    private func foldInvalidTokens(into schema: String, apps: [String], on conn: PGConnection) async throws {
        try await conn.query(
            """
            WITH invalidated AS (
                SELECT DISTINCT ON (app_id, data ->> 'token') app_id, data ->> 'token' AS token,
                    CASE WHEN jsonb_typeof(data -> 'reason') = 'string' THEN data ->> 'reason' ELSE '' END AS reason,
                    (data ->> 'since')::timestamptz AS invalid_since, transaction_id, position
                FROM events
                WHERE app_id = ANY(\(apps)::text[]) AND type = \(InstallationEvent.invalidated)
                  AND jsonb_typeof(data -> 'objectId') = 'string'
                  AND jsonb_typeof(data -> 'token') = 'string' AND data ->> 'token' <> ''
                ORDER BY app_id, data ->> 'token', transaction_id DESC, position DESC),
            saves AS (
                SELECT e.app_id, t.token, e.transaction_id, e.position,
                    coalesce(CASE WHEN jsonb_typeof(e.data -> 'updatedAt') = 'string' THEN e.data ->> 'updatedAt' END,
                             CASE WHEN jsonb_typeof(e.data -> 'createdAt') = 'string' THEN e.data ->> 'createdAt' END
                    )::timestamptz AS at
                FROM events e
                CROSS JOIN LATERAL (
                    SELECT v #>> '{}' AS token
                    FROM (SELECT e.data -> CASE WHEN e.type = \(InstallationEvent.created) THEN 'fields' ELSE 'set' END
                          ) f(fields),
                        unnest(ARRAY[fields -> 'deviceToken', fields -> 'registrationId', fields -> 'subscriptionUri']) v
                    WHERE jsonb_typeof(v) = 'string') t
                WHERE e.app_id = ANY(\(apps)::text[])
                  AND e.type IN (\(InstallationEvent.created), \(InstallationEvent.updated))
                  AND jsonb_typeof(e.data -> 'objectId') = 'string'),
            forgiven AS (
                SELECT DISTINCT i.app_id, i.token
                FROM invalidated i JOIN saves s ON s.app_id = i.app_id AND s.token = i.token
                WHERE (s.transaction_id, s.position) > (i.transaction_id, i.position) AND i.invalid_since < s.at)
            INSERT INTO \(unsafeRaw: schema).invalid_tokens (app_id, token, reason, invalid_since)
            SELECT app_id, token, reason, invalid_since FROM invalidated i
            WHERE NOT EXISTS (SELECT 1 FROM forgiven f WHERE f.app_id = i.app_id AND f.token = i.token)
            """)
    }
}
