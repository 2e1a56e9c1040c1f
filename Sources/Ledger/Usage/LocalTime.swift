import Postgres

/// An app's local calendar (`settings.timezone`, default UTC), on which usage and opens count their days and
/// minutes. The zone is read as a value from the `apps` table of the schema being written (the live one, or a
/// rebuild's, which holds the app's settings as replayed up to the event at hand), so a rebuild places every
/// event on the same day, and the statements then name it as a parameter: a statement of a tenant table names
/// only values, which Citus routes to the app's worker (it refuses a sub-select inside INSERT ... VALUES).
struct LocalTime: Sendable {
    /// The zone's name.
    let zone: String

    init(zone: String) { self.zone = zone }

    /// The app's calendar as `schema`'s `apps` holds it.
    static func of(appId: String, schema: String, on db: some PGQuerying) async throws -> LocalTime {
        let rows = try await db.query(
            .reusingPlan(
                "SELECT settings ->> 'timezone' AS zone FROM \(unsafeRaw: schema).apps WHERE app_id = \(appId)"))
        return LocalTime(zone: rows.first?["zone"] ?? "UTC")
    }

    /// The local calendar day of `at` (an ISO 8601 text).
    func day(_ at: String?) -> PGQuery {
        "((\(at)::timestamptz AT TIME ZONE \(zone)))::date"
    }

    /// The local minute of `at`.
    func minute(_ at: String?) -> PGQuery {
        "date_trunc('minute', \(at)::timestamptz AT TIME ZONE \(zone))"
    }

    /// The local day of a `timestamptz` column or expression of the statement.
    func day(ofColumn column: String) -> PGQuery {
        "(\(unsafeRaw: column) AT TIME ZONE \(zone))::date"
    }
}
