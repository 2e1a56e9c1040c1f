import Postgres
import PushCore

/// One row of a replay's scratch table (an installation, or an object its Pointer names), on which `explain`
/// evaluates compiled conditions one at a time. NULL counts as false, as in targeting's WHERE.
struct ScratchRow {
    /// A trusted table name made by `ReplayScratch`.
    let table: String
    /// Selects the one row, e.g. `app_id = … AND object_id = …`.
    let key: PGQuery
    let conn: PGConnection

    func holds(_ condition: PGQuery) async throws -> Bool {
        try await conn.query(
            "SELECT coalesce((\(condition)), false) AS ok FROM \(unsafeRaw: table) WHERE \(key)"
        ).first?.bool("ok") ?? false
    }

    /// The value of a numeric expression over the row; nil when there is no row or it is NULL.
    func number(_ expression: PGQuery) async throws -> Double? {
        try await conn.query("SELECT (\(expression))::float8 AS v FROM \(unsafeRaw: table) WHERE \(key)")
            .first?["v"].flatMap(Double.init)
    }

    /// The row's jsonb `data`, nil when there is no row.
    func data() async throws -> JSON? {
        try await conn.query("SELECT data FROM \(unsafeRaw: table) WHERE \(key)").first?.json("data")
    }
}
