import Foundation
import Postgres
import PushCore

/// An object of a class other than `_Installation`, as read from the `objects` projection.
public struct StoredObject: Sendable {
    public let className: String
    /// The columns every LeanCloud object row has, read and rendered as an installation's are.
    private let common: StoredInstallation

    public var objectId: String { common.objectId }
    public var fields: [String: JSON] { common.fields }
    public var createdAt: String { common.createdAt }
    public var updatedAt: String { common.updatedAt }
    public var version: Int { common.version }

    init(row: PGRow) throws {
        className = try row.string("class_name")
        common = try StoredInstallation(row: row)
    }

    /// The object as the REST API renders it, optionally restricted to `keys`.
    public func rendered(keys: Set<String>? = nil) -> JSON { common.rendered(keys: keys) }
}

extension StoredObject {
    /// The object of `className` with `objectId`, if the app has it.
    static func load(
        _ className: String, _ objectId: String, appId: String, on conn: PGConnection
    ) async throws
        -> StoredObject?
    {
        let rows = try await conn.query(
            .reusingPlan(
                """
                SELECT class_name, object_id, data, created_at, updated_at, version FROM objects
                WHERE app_id = \(appId) AND class_name = \(className) AND object_id = \(objectId)
                """))
        return try rows.first.map(StoredObject.init)
    }
}
