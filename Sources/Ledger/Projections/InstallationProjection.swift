import Postgres
import PushCore

/// Projects installation streams into `installations`. Applied inline with every append (read-your-writes)
/// and replayed by `rebuild`. Derived columns are generated from `data` by PostgreSQL, so the projection
/// writes only `data`, the dates and the version.
public struct InstallationProjection: Projection {
    public let name = "installations"
    public let tables = ["installations", "invalid_tokens"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        switch eventType {
        case InstallationEvent.created, InstallationEvent.updated, InstallationEvent.badgeReset,
            InstallationEvent.badgeIncremented, InstallationEvent.opened, InstallationEvent.deleted,
            InstallationEvent.invalidated, InstallationEvent.expired:
            return true
        default:
            return false
        }
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        let d = event.data
        guard let objectId = d["objectId"]?.stringValue else { return }
        let table = "\(schema).installations"
        switch event.type {
        case InstallationEvent.created:
            // One statement: forgive the token if it was invalidated earlier, and insert the row.
            try await conn.enqueue(
                .reusingPlan(
                    """
                    WITH forgiven AS (\(forgiveToken(d["fields"], event: event, schema: schema)))
                    INSERT INTO \(unsafeRaw: table) (app_id, object_id, data, created_at, updated_at, version)
                    VALUES (\(event.appId), \(objectId), \(d["fields"] ?? [:])::jsonb,
                            \(d["createdAt"]?.stringValue)::timestamptz, \(d["updatedAt"]?.stringValue)::timestamptz,
                            \(event.version))
                    """))
        case InstallationEvent.updated:
            let unset = (d["unset"]?.arrayValue ?? []).compactMap(\.stringValue)
            try await conn.enqueue(
                .reusingPlan(
                    """
                    WITH forgiven AS (\(forgiveToken(d["set"], event: event, schema: schema)))
                    UPDATE \(unsafeRaw: table)
                    SET data = (data || \(d["set"] ?? [:])::jsonb) - \(unset)::text[],
                        updated_at = \(d["updatedAt"]?.stringValue)::timestamptz, version = \(event.version)
                    WHERE app_id = \(event.appId) AND object_id = \(objectId)
                    """))
        case InstallationEvent.badgeReset, InstallationEvent.badgeIncremented, InstallationEvent.opened:
            // Opens and badge resets keep the installation valid: they bump updatedAt (SPEC §6). A badge
            // incremented by a push is not the device's doing, so it leaves updatedAt alone.
            let badge = Self.badge(of: event)
            try await conn.enqueue(
                .reusingPlan(
                    """
                    UPDATE \(unsafeRaw: table)
                    SET data = CASE WHEN \(badge)::jsonb = 'null'::jsonb THEN data
                                    ELSE jsonb_set(data, '{badge}', \(badge)::jsonb) END,
                        updated_at = coalesce(\(d["updatedAt"]?.stringValue)::timestamptz, updated_at),
                        version = \(event.version)
                    WHERE app_id = \(event.appId) AND object_id = \(objectId)
                    """))
        case InstallationEvent.invalidated:
            // The provider said the token is dead: the installation goes, and the token is remembered so
            // `/push/devices` skips it until it is registered again.
            if let token = d["token"]?.stringValue, !token.isEmpty {
                try await conn.enqueue(
                    """
                    INSERT INTO \(unsafeRaw: schema).invalid_tokens (app_id, token, reason, invalid_since)
                    VALUES (\(event.appId), \(token), \(d["reason"]?.stringValue ?? ""), \(d["since"]?.stringValue)::timestamptz)
                    ON CONFLICT (app_id, token) DO UPDATE SET reason = excluded.reason, invalid_since = excluded.invalid_since
                    """)
            }
            try await conn.enqueue(
                "DELETE FROM \(unsafeRaw: table) WHERE app_id = \(event.appId) AND object_id = \(objectId)")
        default:
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
                guard event.data["objectId"]?.stringValue != nil else { return nil }
                switch event.type {
                case InstallationEvent.created: return .create
                case InstallationEvent.badgeReset, InstallationEvent.badgeIncremented, InstallationEvent.opened:
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

    /// The badge an open or badge event leaves (JSON text; `null` leaves it alone), as `apply` computes it.
    private static func badge(of event: ProjectedEvent) -> JSON {
        event.type == InstallationEvent.badgeReset ? .int(0) : (event.data["badge"] ?? .null)
    }

    /// The `touch` branch of `apply` for several events at once. Applied in turn, an installation's events
    /// leave the last badge that is not null, the last `updatedAt` given and the last version: the same,
    /// per installation, in one UPDATE.
    private func touchAll(_ events: [ProjectedEvent], schema: String) -> PGQuery {
        let objectIds = events.map { $0.data["objectId"]?.stringValue ?? "" }
        let badges = events.map { Self.badge(of: $0).encoded() }
        // "" for none: the arrays are bound as text[] without NULLs.
        let updatedAts = events.map { $0.data["updatedAt"]?.stringValue ?? "" }
        let versions = events.map { String($0.version) }
        return .reusingPlan(
            """
            UPDATE \(unsafeRaw: schema).installations i
            SET data = CASE WHEN a.badge IS NULL THEN i.data ELSE jsonb_set(i.data, '{badge}', a.badge) END,
                updated_at = coalesce(a.updated_at, i.updated_at), version = a.version
            FROM (
                SELECT o,
                    (array_agg(b::jsonb ORDER BY ord DESC) FILTER (WHERE b::jsonb <> 'null'::jsonb))[1] AS badge,
                    (array_agg(u::timestamptz ORDER BY ord DESC) FILTER (WHERE u <> ''))[1] AS updated_at,
                    (array_agg(v::int ORDER BY ord DESC))[1] AS version
                FROM unnest(\(objectIds)::text[], \(badges)::text[], \(updatedAts)::text[], \(versions)::text[])
                    WITH ORDINALITY AS e(o, b, u, v, ord)
                GROUP BY o) a
            WHERE i.app_id = \(events[0].appId) AND i.object_id = a.o
            """)
    }

    /// The `created` statement for several events at once; nil when one lacks what the set form needs
    /// (an object id or its dates), and then each event is applied alone.
    private func createAll(_ events: [ProjectedEvent], schema: String) -> PGQuery? {
        var objectIds: [String] = [], datas: [String] = [], createdAts: [String] = [], updatedAts: [String] = []
        var versions: [String] = [], tokens: [String] = [], tokenAts: [String] = []
        for event in events {
            let d = event.data
            guard let objectId = d["objectId"]?.stringValue, let createdAt = d["createdAt"]?.stringValue,
                let updatedAt = d["updatedAt"]?.stringValue
            else { return nil }
            objectIds.append(objectId)
            datas.append((d["fields"] ?? [:]).encoded())
            createdAts.append(createdAt)
            updatedAts.append(updatedAt)
            versions.append(String(event.version))
            for token in Self.forgivenTokens(d["fields"]) {
                tokens.append(token)
                tokenAts.append(updatedAt)
            }
        }
        return .reusingPlan(
            """
            WITH forgiven AS (
                DELETE FROM \(unsafeRaw: schema).invalid_tokens i
                USING unnest(\(tokens)::text[], \(tokenAts)::text[]) AS f(token, at)
                WHERE i.app_id = \(events[0].appId) AND i.token = f.token AND i.invalid_since < f.at::timestamptz)
            INSERT INTO \(unsafeRaw: schema).installations (app_id, object_id, data, created_at, updated_at, version)
            SELECT \(events[0].appId), o, d::jsonb, c::timestamptz, u::timestamptz, v::int
            FROM unnest(\(objectIds)::text[], \(datas)::text[], \(createdAts)::text[], \(updatedAts)::text[],
                        \(versions)::text[]) WITH ORDINALITY AS r(o, d, c, u, v, ord)
            ORDER BY ord
            """)
    }

    /// The tokens a registration makes usable again.
    private static func forgivenTokens(_ fields: JSON?) -> [String] {
        ["deviceToken", "registrationId", "subscriptionUri"].compactMap { fields?[$0]?.stringValue }
    }

    /// A token registered again after its invalidation is usable again: the DELETE that says so, as a
    /// statement to embed (it matches nothing when the event carries no token).
    private func forgiveToken(_ fields: JSON?, event: ProjectedEvent, schema: String) -> PGQuery {
        let tokens = Self.forgivenTokens(fields)
        let at = event.data["updatedAt"]?.stringValue ?? event.data["createdAt"]?.stringValue
        return """
            DELETE FROM \(unsafeRaw: schema).invalid_tokens
            WHERE app_id = \(event.appId) AND token = ANY(\(tokens)::text[]) AND invalid_since < \(at)::timestamptz
            """
    }
}
