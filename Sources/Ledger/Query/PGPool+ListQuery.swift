import Postgres
import PushCore

extension PGPool {
    /// A LeanCloud list query over a table shaped like `installations` (`object_id`, `data`, `created_at`,
    /// `updated_at`): `where` and `order` compiled over `schema`, `limit`, `skip`, `keys`, `count`. `scope` is the
    /// table and the conditions that come before the compiled ones (`FROM objects WHERE app_id = … AND`);
    /// `render` turns a row (`object_id, data, created_at, updated_at` and `extraColumns`) into its JSON.
    nonisolated func list(
        _ request: InstallationListRequest, schema: QuerySchema, related: RelatedClasses, scope: PGQuery,
        extraColumns: String = "",
        render: @Sendable (PGRow, Set<String>?) throws -> JSON
    ) async throws -> (results: [JSON], count: Int?) {
        let compiler = WhereCompiler(schema: schema, related: related)
        let condition: BoundSQL
        let order: BoundSQL
        do {
            condition = try compiler.compile(request.whereJSON)
            // SPEC §12.1: a listing with $nearSphere and no `order` comes nearest first.
            if request.order == nil, let nearest = try compiler.distanceOrder(request.whereJSON) {
                order = nearest + BoundSQL(sql: ", ") + (try compiler.compileOrder(""))
            } else {
                order = try compiler.compileOrder(request.order ?? "")
            }
        } catch {
            throw error.leanError
        }
        let base: PGQuery = "\(scope) (\(condition))"
        return try await withConnection { conn in
            try await conn.checkRegexes(of: condition)
            var results: [JSON] = []
            if request.limit > 0 {
                let rows = try await conn.query(
                    """
                    SELECT object_id, data, created_at, updated_at\(unsafeRaw: extraColumns) \(base)
                    ORDER BY \(order) LIMIT \(request.limit) OFFSET \(request.skip)
                    """)
                results = try rows.map { try render($0, request.keys) }
            }
            var total: Int?
            if request.count { total = try await conn.query("SELECT count(*) AS n \(base)")[0].int("n") }
            return (results, total)
        }
    }
}
