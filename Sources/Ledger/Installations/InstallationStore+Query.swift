import Foundation
import Postgres
import PushCore

/// A list query's parameters, as the REST API receives them.
public struct InstallationListRequest: Sendable {
    public var whereJSON: JSON = .object([:])
    public var order: String?
    public var limit: Int = 100
    public var skip: Int = 0
    public var keys: Set<String>?
    public var count = false

    public init() {}
}

extension InstallationStore {
    public func get(appId: String, objectId: String) async throws -> StoredInstallation? {
        try await store.pool.withConnection { try await Self.load(objectId, appId: appId, on: $0) }
    }

    /// GET list: `where` compiled to bound SQL, `order`, `limit` (≤ 1000), `skip`, `keys`, `count`.
    public func list(appId: String, _ request: InstallationListRequest) async throws -> (results: [JSON], count: Int?) {
        let compiler = WhereCompiler(schema: .installations)
        let condition: BoundSQL
        let order: BoundSQL
        do {
            condition = try compiler.compile(request.whereJSON)
            order = try compiler.compileOrder(request.order ?? "")
        } catch {
            throw LeanError(error.code, error.message)
        }
        let base: PGQuery = "FROM installations WHERE app_id = \(appId) AND (\(condition))"
        return try await store.pool.withConnection { conn in
            try await conn.checkRegexes(of: condition)
            var results: [JSON] = []
            if request.limit > 0 {
                let rows = try await conn.query(
                    """
                    SELECT object_id, data, created_at, updated_at \(base)
                    ORDER BY \(order) LIMIT \(request.limit) OFFSET \(request.skip)
                    """)
                results = try rows.map { try StoredInstallation(row: $0).rendered(keys: request.keys) }
            }
            var total: Int?
            if request.count {
                total = try await conn.query("SELECT count(*) AS n \(base)")[0].int("n")
            }
            return (results, total)
        }
    }
}
