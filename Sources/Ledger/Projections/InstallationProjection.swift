import Postgres
import PushCore

/// Projects installation streams into `installations`. Applied inline with every append (read-your-writes)
/// and replayed by `rebuild`. Derived columns are generated from `data` by PostgreSQL, so the projection
/// writes only `data`, the dates and the version.
public struct InstallationProjection: Projection {
    public let name = "installations"
    public let tables = ["installations", "invalid_tokens"]

    public init() {}

    public func handles(_ eventType: String) -> Bool { InstallationEvent.all.contains(eventType) }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        guard case .installation(let change) = event.event else { return }
        let objectId = change.objectId
        let table = "\(schema).installations"
        switch change {
        case .created(let created):
            // One statement: forgive the token if it was invalidated earlier, and insert the row.
            try await conn.enqueue(
                .reusingPlan(
                    """
                    WITH forgiven AS (\(forgiveToken(created.fields, at: created.updatedAt, appId: event.appId, schema: schema)))
                    INSERT INTO \(unsafeRaw: table) (app_id, object_id, data, created_at, updated_at, version)
                    VALUES (\(event.appId), \(objectId), \(JSON.object(created.fields))::jsonb,
                            \(created.createdAt)::timestamptz, \(created.updatedAt)::timestamptz, \(event.version))
                    """))
        case .updated(let updated):
            try await conn.enqueue(
                .reusingPlan(
                    """
                    WITH forgiven AS (\(forgiveToken(updated.set, at: updated.updatedAt, appId: event.appId, schema: schema)))
                    UPDATE \(unsafeRaw: table)
                    SET data = (data || \(JSON.object(updated.set))::jsonb) - \(updated.unset)::text[],
                        updated_at = \(updated.updatedAt)::timestamptz, version = \(event.version)
                    WHERE app_id = \(event.appId) AND object_id = \(objectId)
                    """))
        case .badgeReset, .badgeIncremented, .opened:
            // Opens and badge resets keep the installation valid: they bump updatedAt (SPEC §6). A badge
            // incremented by a push is not the device's doing, so it leaves updatedAt alone.
            let (badge, updatedAt) = Self.touch(change)
            try await conn.enqueue(
                .reusingPlan(
                    """
                    UPDATE \(unsafeRaw: table)
                    SET data = CASE WHEN \(badge)::jsonb = 'null'::jsonb THEN data
                                    ELSE jsonb_set(data, '{badge}', \(badge)::jsonb) END,
                        updated_at = coalesce(\(updatedAt)::timestamptz, updated_at),
                        version = \(event.version)
                    WHERE app_id = \(event.appId) AND object_id = \(objectId)
                    """))
        case .invalidated(let invalidated):
            // The provider said the token is dead: the installation goes, and the token is remembered so
            // `/push/devices` skips it until it is registered again.
            if let token = invalidated.token, !token.isEmpty {
                try await conn.enqueue(
                    """
                    INSERT INTO \(unsafeRaw: schema).invalid_tokens (app_id, token, reason, invalid_since)
                    VALUES (\(event.appId), \(token), \(invalidated.reason ?? ""), \(invalidated.since)::timestamptz)
                    ON CONFLICT (app_id, token) DO UPDATE SET reason = excluded.reason, invalid_since = excluded.invalid_since
                    """)
            }
            try await conn.enqueue(
                "DELETE FROM \(unsafeRaw: table) WHERE app_id = \(event.appId) AND object_id = \(objectId)")
        case .deleted, .expired:
            try await conn.enqueue(
                "DELETE FROM \(unsafeRaw: table) WHERE app_id = \(event.appId) AND object_id = \(objectId)")
        }
    }

    /// What `applyAll` writes in one statement: creates (a group-committed batch of saves, a rebuild's page),
    /// and the events that only touch the badge and `updatedAt` (opens, badge resets and increments).
    enum RunKind { case create, touch }

    /// Runs of consecutive creates, or of opens and badge changes, go in one statement that does what `apply`
    /// does for each of them in turn; everything else, and a run of one, goes through `apply`.
    public func applyAll(_ events: [ProjectedEvent], on conn: PGConnection, schema: String) async throws {
        try await applyRuns(
            events, on: conn, schema: schema,
            kind: { event -> RunKind? in
                switch event.event {
                case .installation(.created): return .create
                case .installation(.badgeReset), .installation(.badgeIncremented), .installation(.opened):
                    return .touch
                default: return nil
                }
            }
        ) { kind, run in
            switch kind {
            case .create: createAll(run, schema: schema)
            case .touch: touchAll(run, schema: schema)
            }
        }
    }

    /// The badge an open or badge event leaves (JSON; `null` leaves it alone) and the `updatedAt` it sets (nil:
    /// left alone), as `apply` computes them.
    private static func touch(_ change: InstallationLogEvent) -> (badge: JSON, updatedAt: String?) {
        switch change {
        case .badgeReset(let reset): (.int(0), reset.updatedAt)
        case .badgeIncremented(let incremented): (incremented.badge.map(JSON.int) ?? .null, incremented.updatedAt)
        case .opened(let open): (.null, open.updatedAt)
        default: (.null, nil)
        }
    }

    private static func installation(_ event: ProjectedEvent) -> InstallationLogEvent? {
        guard case .installation(let change) = event.event else { return nil }
        return change
    }

    /// The `touch` branch of `apply` for several events at once. Applied in turn, an installation's events
    /// leave the last badge that is not null, the last `updatedAt` given and the last version: the same,
    /// per installation, in one UPDATE.
    private func touchAll(_ events: [ProjectedEvent], schema: String) -> PGQuery {
        let changes = events.compactMap(Self.installation)
        let objectIds = changes.map(\.objectId)
        let touches = changes.map(Self.touch)
        let badges = touches.map { $0.badge.encoded() }
        // Times are bound as timestamptz[] (NULL for none), not cast from text in the statement: Citus refuses an
        // UPDATE of a distributed table that calls a STABLE function (text to timestamptz) on a column.
        let updatedAts = PGNullableArray(touches.map(\.updatedAt))
        let versions = events.map { String($0.version) }
        return .reusingPlan(
            """
            UPDATE \(unsafeRaw: schema).installations i
            SET data = CASE WHEN a.badge IS NULL THEN i.data ELSE jsonb_set(i.data, '{badge}', a.badge) END,
                updated_at = coalesce(a.updated_at, i.updated_at), version = a.version
            FROM (
                SELECT o,
                    (array_agg(b::jsonb ORDER BY ord DESC) FILTER (WHERE b::jsonb <> 'null'::jsonb))[1] AS badge,
                    (array_agg(u ORDER BY ord DESC) FILTER (WHERE u IS NOT NULL))[1] AS updated_at,
                    (array_agg(v::int ORDER BY ord DESC))[1] AS version
                FROM unnest(\(objectIds)::text[], \(badges)::text[], \(updatedAts)::timestamptz[], \(versions)::text[])
                    WITH ORDINALITY AS e(o, b, u, v, ord)
                GROUP BY o) a
            WHERE i.app_id = \(events[0].appId) AND i.object_id = a.o
            """)
    }

    /// The `created` statement for several events at once.
    private func createAll(_ events: [ProjectedEvent], schema: String) -> PGQuery? {
        var objectIds: [String] = [], datas: [String] = [], createdAts: [String?] = [], updatedAts: [String?] = []
        var versions: [String] = [], tokens: [String] = [], tokenAts: [String?] = []
        for event in events {
            guard case .installation(.created(let created)) = event.event else { return nil }
            objectIds.append(created.objectId)
            datas.append(JSON.object(created.fields).encoded())
            createdAts.append(created.createdAt)
            updatedAts.append(created.updatedAt)
            versions.append(String(event.version))
            for token in Self.forgivenTokens(created.fields) {
                tokens.append(token)
                tokenAts.append(created.updatedAt)
            }
        }
        return .reusingPlan(
            """
            WITH forgiven AS (
                DELETE FROM \(unsafeRaw: schema).invalid_tokens i
                USING unnest(\(tokens)::text[], \(PGNullableArray(tokenAts))::timestamptz[]) AS f(token, at)
                WHERE i.app_id = \(events[0].appId) AND i.token = f.token AND i.invalid_since < f.at)
            INSERT INTO \(unsafeRaw: schema).installations (app_id, object_id, data, created_at, updated_at, version)
            SELECT \(events[0].appId), o, d::jsonb, c, u, v::int
            FROM unnest(\(objectIds)::text[], \(datas)::text[], \(PGNullableArray(createdAts))::timestamptz[],
                        \(PGNullableArray(updatedAts))::timestamptz[], \(versions)::text[])
                WITH ORDINALITY AS r(o, d, c, u, v, ord)
            ORDER BY ord
            """)
    }

    /// The tokens a registration makes usable again.
    private static func forgivenTokens(_ fields: [String: JSON]) -> [String] {
        ["deviceToken", "registrationId", "subscriptionUri"].compactMap { fields[$0]?.stringValue }
    }

    /// A token registered again after its invalidation (at `at`) is usable again: the DELETE that says so, as
    /// a statement to embed (it matches nothing when the event carries no token).
    private func forgiveToken(_ fields: [String: JSON], at: String?, appId: String, schema: String) -> PGQuery {
        let tokens = Self.forgivenTokens(fields)
        return """
            DELETE FROM \(unsafeRaw: schema).invalid_tokens
            WHERE app_id = \(appId) AND token = ANY(\(tokens)::text[]) AND invalid_since < \(at)::timestamptz
            """
    }
}
