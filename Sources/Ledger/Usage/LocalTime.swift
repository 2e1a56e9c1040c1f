import Postgres

/// SQL fragments that place an event time on the app's local calendar (`settings.timezone`, default UTC),
/// read from the projection's own `apps` table so a rebuild places every event on the same day.
enum LocalTime {
    /// The app's time zone name.
    static func zone(appId: String, schema: String) -> PGQuery {
        "coalesce((SELECT settings ->> 'timezone' FROM \(unsafeRaw: schema).apps WHERE app_id = \(appId)), 'UTC')"
    }

    /// The local calendar day of `at` (an ISO 8601 text).
    static func day(_ at: String?, appId: String, schema: String) -> PGQuery {
        "((\(at)::timestamptz AT TIME ZONE \(zone(appId: appId, schema: schema))))::date"
    }

    /// The local minute of `at`.
    static func minute(_ at: String?, appId: String, schema: String) -> PGQuery {
        "date_trunc('minute', \(at)::timestamptz AT TIME ZONE \(zone(appId: appId, schema: schema)))"
    }
}
