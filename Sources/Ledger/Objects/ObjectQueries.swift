import Foundation
import Postgres
import PushCore

/// A class query's parameters: the same as an installation query's.
public typealias ObjectListRequest = InstallationListRequest

/// The objects of every class as the commands left them (`objects`, `class_fields`), and the users' secrets a
/// login or a session checks against (SPEC §12.5).
public struct ObjectQueries: Sendable {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    public func get(appId: String, className: String, objectId: String) async throws -> StoredObject? {
        try await pool.withConnection { try await StoredObject.load(className, objectId, appId: appId, on: $0) }
    }

    /// GET list: `where` compiled by the installations' compiler over `QuerySchema.objects` (knowing the
    /// class's inferred field types), `order`, `limit`, `skip`, `keys`, `count`; one class of one app, its
    /// sub-queries reading what `rights` allow.
    public func list(
        appId: String, className: String, _ request: ObjectListRequest, rights: QueryRights
    ) async throws
        -> (results: [JSON], count: Int?)
    {
        let types = try await fieldTypes(appId: appId, className: className)
        return try await pool.list(
            request, schema: QuerySchema.objects.declaring(types),
            related: RelatedClasses(appId: appId, rights: rights),
            scope: "FROM objects WHERE app_id = \(appId) AND class_name = \(className) AND",
            extraColumns: ", class_name"
        ) { row, keys in try StoredObject(row: row).rendered(keys: keys) }
    }

    /// Which of `classNames` exist in the app: they have objects, or had (their field types stay).
    public func existingClasses(appId: String, _ classNames: Set<String>) async throws -> Set<String> {
        guard !classNames.isEmpty else { return [] }
        let rows = try await pool.query(
            """
            SELECT c FROM unnest(\(Array(classNames))::text[]) AS c
            WHERE EXISTS (SELECT 1 FROM class_fields f WHERE f.app_id = \(appId) AND f.class_name = c)
               OR EXISTS (SELECT 1 FROM objects o WHERE o.app_id = \(appId) AND o.class_name = c)
            """)
        return Set(try rows.map { try $0.string("c") })
    }

    /// The class's field types as inferred so far (field → `String`, `Pointer<_User>`, `GeoPoint`…).
    public func fieldTypes(appId: String, className: String) async throws -> [String: FieldType] {
        try await pool.withConnection { try await ObjectCommands.fieldTypes(className, appId: appId, on: $0) }
    }

    /// The user a username names, with their password hash, for a login to check.
    public func credentials(appId: String, username: String) async throws -> (userId: String, passwordHash: String)? {
        let rows = try await pool.query(
            .reusingPlan(
                """
                SELECT user_id, password_hash FROM user_credentials
                WHERE app_id = \(appId) AND username = \(username)
                """))
        return try rows.first.map { (try $0.string("user_id"), try $0.string("password_hash")) }
    }

    /// The user a session token's hash belongs to, if the session exists.
    public func sessionUser(appId: String, sessionHash: String) async throws -> String? {
        let rows = try await pool.query(
            .reusingPlan(
                "SELECT user_id FROM user_sessions WHERE app_id = \(appId) AND token_hash = \(sessionHash)"))
        return try rows.first?.string("user_id")
    }
}
