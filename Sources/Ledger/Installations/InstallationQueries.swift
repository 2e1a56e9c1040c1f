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

/// The installations as the commands left them (`installations`, SPEC §3).
public struct InstallationQueries: Sendable {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    public func get(appId: String, objectId: String) async throws -> StoredInstallation? {
        try await pool.withConnection { try await StoredInstallation.load(objectId, appId: appId, on: $0) }
    }

    /// GET list: `where` compiled to bound SQL, `order`, `limit` (≤ 1000), `skip`, `keys`, `count`; its
    /// sub-queries read what `rights` allow.
    public func list(
        appId: String, _ request: InstallationListRequest, rights: QueryRights
    ) async throws -> (results: [JSON], count: Int?) {
        try await pool.list(
            request, schema: .installations, related: RelatedClasses(appId: appId, rights: rights),
            scope: "FROM installations WHERE app_id = \(appId) AND"
        ) { row, keys in try StoredInstallation(row: row).rendered(keys: keys) }
    }
}
