import Foundation
import Postgres
import PushCore

/// Commands on objects of `_User` and custom classes (issue 16), each one event on the object's stream, and the
/// per-class field types they keep: the first value of a field fixes its type, a later value of another type is
/// refused (code 111) before anything is appended.
public struct ObjectCommands: Sendable {
    let store: EventStore

    public init(store: EventStore) { self.store = store }

    /// The answer to a create.
    public struct Created: Sendable {
        public let objectId: String
        public let createdAt: String
    }

    /// POST: a new object of `className` (validated by the caller with `ClassName.requireObjectClass`).
    public func create(
        appId: String, className: String, body: [String: JSON], metadata: EventMetadata, now: Date? = nil
    ) async throws -> Created {
        let now = LeanDate.format(now ?? store.clock.now())
        return try await store.write(appId: appId, metadata: metadata, lockKeys: []) { tx in
            try await Self.appendCreate(className: className, body: body, at: now, tx: tx)
        }
    }

    /// PUT: field sets and `__op` operations; answers the new updatedAt.
    public func update(
        appId: String, className: String, objectId: String, body: [String: JSON], metadata: EventMetadata,
        now: Date? = nil
    ) async throws -> String {
        let now = LeanDate.format(now ?? store.clock.now())
        let stream = ObjectEvent.stream(className: className, objectId: objectId)
        return try await store.write(appId: appId, metadata: metadata, lockKeys: [stream]) { tx in
            guard let current = try await StoredObject.load(className, objectId, appId: appId, on: tx.connection) else {
                throw LeanError.notFound()
            }
            try await Self.appendUpdate(current, body: body, at: now, tx: tx)
            return now
        }
    }

    /// A new object's event, in `tx`; throws, having appended nothing, if a field is bad.
    static func appendCreate(
        className: String, body: [String: JSON], at now: String, tx: LedgerTransaction
    ) async throws -> Created {
        let update = try ObjectUpdate.apply(body: body, to: [:], className: className, isCreate: true)
        let objectId = RandomID.make()
        let stream = ObjectEvent.stream(className: className, objectId: objectId)
        tx.claimNewStream(stream)
        if className == ClassName.user { try await claimUsername(update, of: objectId, tx: tx) }
        let types = try await checkTypes(update, className: className, tx: tx)
        let created = ObjectCreated(className: className, objectId: objectId, fields: update.set, types: types, at: now)
        try await tx.append(stream: stream, expectedVersion: 0, [NewEvent(.creation(created))])
        return Created(objectId: objectId, createdAt: now)
    }

    /// The event applying `body` to `current` (whose stream `tx` has locked); answers the fields after it.
    @discardableResult
    static func appendUpdate(
        _ current: StoredObject, body: [String: JSON], at now: String, tx: LedgerTransaction
    ) async throws -> [String: JSON] {
        let className = current.className
        let update = try ObjectUpdate.apply(body: body, to: current.fields, className: className, isCreate: false)
        if className == ClassName.user { try await claimUsername(update, of: current.objectId, tx: tx) }
        let types = try await checkTypes(update, className: className, tx: tx)
        let updated = ObjectUpdated(
            className: className, objectId: current.objectId, set: update.set, unset: update.unset, types: types,
            at: now)
        try await tx.append(
            stream: ObjectEvent.stream(className: className, objectId: current.objectId),
            expectedVersion: current.version, [NewEvent(.update(updated))])
        return update.fields
    }

    /// DELETE one object.
    public func delete(
        appId: String, className: String, objectId: String, metadata: EventMetadata, now: Date? = nil
    ) async throws {
        let now = LeanDate.format(now ?? store.clock.now())
        let stream = ObjectEvent.stream(className: className, objectId: objectId)
        try await store.write(appId: appId, metadata: metadata, lockKeys: [stream]) { tx in
            guard let current = try await StoredObject.load(className, objectId, appId: appId, on: tx.connection) else {
                throw LeanError.notFound()
            }
            let deleted = ObjectDeleted(className: className, objectId: objectId, at: now)
            try await tx.append(stream: stream, expectedVersion: current.version, [NewEvent(.deleted(deleted))])
            if className == ClassName.user { try await Self.forgetSecrets(of: objectId, tx: tx) }
        }
    }

    /// The types `update` fixes for the first time, after checking every field it sets against the class's.
    /// Fields the class has no type for yet are locked (and the class's GeoPoint slot, when one of them is a
    /// GeoPoint) and read again, so two concurrent first values of a field cannot both fix its type.
    static func checkTypes(
        _ update: ObjectUpdate, className: String, tx: LedgerTransaction
    ) async throws
        -> [String: FieldType]
    {
        var known = try await fieldTypes(className, appId: tx.appId, on: tx.connection)
        let fresh = try update.newTypes(known: known)
        guard !fresh.isEmpty else { return fresh }
        var keys = fresh.keys.map { "class_field:\(className):\($0)" }
        if fresh.values.contains(.geoPoint) { keys.append("class_geopoint:\(className)") }
        try await tx.lock(keys)
        known = try await fieldTypes(className, appId: tx.appId, on: tx.connection)
        return try update.newTypes(known: known)
    }

    static func fieldTypes(
        _ className: String, appId: String, on conn: PGConnection
    ) async throws
        -> [String: FieldType]
    {
        let rows = try await conn.query(
            .reusingPlan(
                "SELECT field, type FROM class_fields WHERE app_id = \(appId) AND class_name = \(className)"))
        var types: [String: FieldType] = [:]
        for row in rows {
            if let type = FieldType(stored: try row.string("type")) { types[try row.string("field")] = type }
        }
        return types
    }
}
