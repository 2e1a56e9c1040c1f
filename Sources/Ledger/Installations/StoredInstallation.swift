import Foundation
import Postgres
import PushCore

/// An installation row as read from the projection.
public struct StoredInstallation: Sendable {
    public let objectId: String
    public let fields: [String: JSON]
    public let createdAt: String
    public let updatedAt: String
    public let version: Int

    init(row: PGRow) throws {
        objectId = try row.string("object_id")
        fields = try row.json("data").objectValue ?? [:]
        createdAt = LeanDate.format(try row.date("created_at"))
        updatedAt = LeanDate.format(try row.date("updated_at"))
        version = (try? row.int("version")) ?? 0
    }

    /// The object as the REST API renders it, optionally restricted to `keys`.
    public func rendered(keys: Set<String>? = nil) -> JSON {
        var o = fields
        if let keys { o = o.filter { keys.contains($0.key) } }
        o["objectId"] = .string(objectId)
        o["createdAt"] = .string(createdAt)
        o["updatedAt"] = .string(updatedAt)
        return .object(o)
    }
}

extension StoredInstallation {
    /// The row of `objectId`, if the app has it.
    static func load(_ objectId: String, appId: String, on conn: PGConnection) async throws -> StoredInstallation? {
        let rows = try await conn.query(
            .reusingPlan(
                """
                SELECT object_id, data, created_at, updated_at, version FROM installations
                WHERE app_id = \(appId) AND object_id = \(objectId)
                """))
        return try rows.first.map(StoredInstallation.init)
    }
}
