import Postgres
import PushCore

/// In a rebuild, the push opens (an `AppOpened` naming its push and installation: the ones `applyAll` writes
/// with `openAll`) are summarised from the whole log instead of paged: for a history with many opens they were
/// most of the page pass, on the one connection that writes.
///
/// Why the summary equals `applyOpen` / `openAll` applied in log order, as the log is written:
/// - `push_opens`: each (push, installation) row is inserted by its first open and only counted by the later
///   ones, and no other event writes these rows, so the row is that of the first open in log order, with the
///   number of opens;
/// - `push_stats`: the opens and the first opens of each push, added to its row; an open names a push recorded
///   before it (`OpenCommands` checks), so the row exists when the page pass is done;
/// - `daily_opens`: every open on the local day and platform it happened on, the first ones also as unique; the
///   local day uses the app's time zone as of the open, which the summary follows through the app's own events
///   (`AppProjection`: a creation sets the settings, a change merges `set` and then removes `unset`).
extension SummarizedEvents {
    /// The opens `applyAll` writes as runs (`openAll`, and `NotificationProjection`'s count): an `AppOpened` naming
    /// its push and installation.
    public static let pushOpens = SummarizedEvents(
        type: InstallationEvent.opened,
        condition: "jsonb_typeof(data -> 'pushId') = 'string' AND jsonb_typeof(data -> 'objectId') = 'string'")
}

extension PushStatsProjection: LogSummarizingProjection {
    public var summarizedEvents: SummarizedEvents { .pushOpens }
    /// Only a push open writes a `push_opens` row.
    public var summaryTables: [String] { ["push_opens"] }

    public func summarize(apps: [String], on reader: PGConnection) async throws {
        // Each open with its place in the log, its texts as `openAll` reads them, and whether it is the first of
        // its push and installation.
        try await reader.query(
            """
            CREATE TEMPORARY TABLE rebuild_push_opens ON COMMIT DROP AS
            SELECT app_id, x, n, p, i, pl, at_text, dl_text, nullif(at_text, '')::timestamptz AS at,
                row_number() OVER (PARTITION BY app_id, p, i ORDER BY x, n) = 1 AS first,
                count(*) OVER (PARTITION BY app_id, p, i) AS opens
            FROM (SELECT app_id, transaction_id AS x, position AS n, data ->> 'pushId' AS p, data ->> 'objectId' AS i,
                      CASE WHEN jsonb_typeof(data -> 'platform') = 'string' THEN data ->> 'platform' ELSE '' END AS pl,
                      CASE WHEN jsonb_typeof(data -> 'at') = 'string' THEN data ->> 'at' ELSE '' END AS at_text,
                      CASE WHEN jsonb_typeof(data -> 'deliveredAt') = 'string' THEN data ->> 'deliveredAt' ELSE '' END
                          AS dl_text
                  FROM events WHERE app_id = ANY(\(apps)::text[]) AND \(summarizedEvents.sql)) o
            """)
        // The app's time zone from each app event that sets or removes it until the next one.
        try await reader.query(
            """
            CREATE TEMPORARY TABLE rebuild_open_days ON COMMIT DROP AS
            WITH zones AS (
                SELECT app_id, x, n, zone, lead(x) OVER w AS next_x, lead(n) OVER w AS next_n
                FROM (SELECT app_id, transaction_id AS x, position AS n,
                          CASE WHEN type = \(AppEvent.created) THEN data -> 'settings' ->> 'timezone'
                               WHEN jsonb_typeof(data -> 'unset') = 'array' AND data -> 'unset' @> '["timezone"]' THEN NULL
                               ELSE data -> 'set' ->> 'timezone' END AS zone
                      FROM events
                      WHERE app_id = ANY(\(apps)::text[])
                        AND (type = \(AppEvent.created)
                             OR type = \(AppEvent.settingsChanged)
                                AND (jsonb_typeof(data -> 'unset') = 'array' AND data -> 'unset' @> '["timezone"]'
                                     OR jsonb_typeof(data -> 'set') = 'object' AND data -> 'set' ? 'timezone'))) c
                WINDOW w AS (PARTITION BY app_id ORDER BY x, n))
            SELECT o.app_id, (o.at AT TIME ZONE coalesce(z.zone, 'UTC'))::date AS day, o.pl,
                count(*) AS opens, count(*) FILTER (WHERE o.first) AS firsts
            FROM rebuild_push_opens o
            LEFT JOIN zones z ON z.app_id = o.app_id AND (z.x, z.n) < (o.x, o.n)
                AND (z.next_x IS NULL OR (o.x, o.n) < (z.next_x, z.next_n))
            GROUP BY 1, 2, 3
            """)
    }

    public func writeSummary(from reader: PGConnection, into schema: String, on conn: PGConnection) async throws {
        // The rows of `push_opens` travel from the reader's COPY to the writer's, never decoded on the way.
        try await conn.copyIn(
            PGQuery(
                unsafeSQL: """
                    COPY \(schema).push_opens
                        (app_id, push_id, installation_id, platform, first_open_at, seconds_to_open, opens) FROM STDIN
                    """),
            from: reader,
            PGQuery(
                unsafeSQL: """
                    COPY (SELECT app_id, p, i, pl, nullif(at_text, '')::timestamptz,
                              extract(epoch FROM nullif(at_text, '')::timestamptz - nullif(dl_text, '')::timestamptz),
                              opens
                          FROM rebuild_push_opens WHERE first) TO STDOUT
                    """))

        let pushes = try await reader.query(
            """
            SELECT app_id, p, count(*) AS opens, count(*) FILTER (WHERE first) AS firsts
            FROM rebuild_push_opens GROUP BY app_id, p
            """)
        let pushApps = try pushes.map { try $0.string("app_id") }
        let pushIds = try pushes.map { try $0.string("p") }
        let pushOpens = try pushes.map { try $0.string("opens") }
        let pushFirsts = try pushes.map { try $0.string("firsts") }
        try await conn.query(
            """
            UPDATE \(unsafeRaw: schema).push_stats s
            SET opens = s.opens + c.opens, unique_opens = s.unique_opens + c.firsts
            FROM unnest(\(pushApps)::text[], \(pushIds)::text[], \(pushOpens)::bigint[], \(pushFirsts)::bigint[])
                AS c(app_id, push_id, opens, firsts)
            WHERE s.app_id = c.app_id AND s.push_id = c.push_id
            """)

        // A day is NULL only for an open without a time, which `daily_opens` refuses, as in the page pass.
        let days = try await reader.query("SELECT app_id, day::text AS day, pl, opens, firsts FROM rebuild_open_days")
        let dayApps = try days.map { try $0.string("app_id") }
        let dayDates = try days.map { try $0.string("day") }
        let dayPlatforms = try days.map { try $0.string("pl") }
        let dayOpens = try days.map { try $0.string("opens") }
        let dayFirsts = try days.map { try $0.string("firsts") }
        try await conn.query(
            """
            INSERT INTO \(unsafeRaw: schema).daily_opens (app_id, day, platform, push_opens, unique_push_opens)
            SELECT app_id, day::date, platform, opens, firsts
            FROM unnest(\(dayApps)::text[], \(dayDates)::text[], \(dayPlatforms)::text[], \(dayOpens)::bigint[],
                        \(dayFirsts)::bigint[]) AS d(app_id, day, platform, opens, firsts)
            ON CONFLICT (app_id, day, platform) DO UPDATE SET push_opens = daily_opens.push_opens + excluded.push_opens,
                unique_push_opens = daily_opens.unique_push_opens + excluded.unique_push_opens
            """)
    }
}
