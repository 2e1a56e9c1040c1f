import Foundation
import Postgres
import PushCore

/// What `explain` reads out for conditions that go beyond the installation's own fields: the object a Pointer
/// names (as it stood at the instant) under `$inQuery`/`$notInQuery`, and distances under `$nearSphere`, so
/// an excluded device is explained as "owner's location 1.40 mi away > 1.0 mi" rather than by the pointer.
extension InstallationAtInstant {
    /// Where sub-queries read other classes: the scratch copy folded to the instant (empty, and then never
    /// read, when the push's `where` names no other class).
    /// Replay and explain are operators' tools (the command line, the console), with the master key's rights.
    var related: RelatedClasses { RelatedClasses(appId: appId, objectsTable: scratch.objects, rights: .master) }

    /// The reading for a top-level `where` key, nil when there is nothing beyond the field's value to show.
    func reading(of key: String, _ condition: JSON, fields: JSON?) async throws -> String? {
        guard !key.hasPrefix("$"), let operators = condition.objectValue else { return nil }
        if let near = try await nearSphere(field: key, condition, on: installationRow, schema: .installations) {
            return near
        }
        guard let op = ["$inQuery", "$notInQuery"].first(where: { operators[$0] != nil }) else { return nil }
        return try await pointedObject(key, operand: operators[op]!, pointer: fields?[key])
    }

    var installationRow: ScratchRow {
        ScratchRow(
            table: scratch.installations, key: "app_id = \(appId) AND object_id = \(objectId)", conn: conn)
    }

    /// The object `pointer` names, and each condition of the sub-query on it: the first one it fails, or all
    /// of them read out when it matches.
    private func pointedObject(_ key: String, operand: JSON, pointer: JSON?) async throws -> String {
        guard pointer?["__type"]?.stringValue == "Pointer", let pointedClass = pointer?["className"]?.stringValue,
            let pointedId = pointer?["objectId"]?.stringValue
        else { return "\(key) is not a Pointer: \(pointer?.encoded() ?? "(absent)")" }
        let named = operand["className"]?.stringValue
        let subWhere = named == nil && operand["where"] == nil ? operand : operand["where"] ?? [:]
        if let named, named != pointedClass { return "\(key) points at a \(pointedClass), not a \(named)" }
        let object = ScratchRow(
            table: scratch.objects,
            key: "app_id = \(appId) AND class_name = \(pointedClass) AND object_id = \(pointedId)", conn: conn)
        let name = "\(key) → \(pointedClass) \(pointedId)"
        guard let data = try await object.data() else { return "\(name) did not exist at the instant" }
        var read: [String] = []
        for (subKey, subCondition) in Self.whereItems(subWhere) {
            let compiled = try compile(.object([subKey: subCondition]), schema: .objects)
            let met = try await object.holds("\(compiled)")
            let value =
                try await nearSphere(field: subKey, subCondition, on: object, schema: .objects)
                ?? "\(subKey) = \(data[subKey]?.encoded() ?? "(absent)"), requires \(subCondition.encoded())"
            // The issue's own wording: "owner's location 1.4 mi away > 1.0 mi".
            if !met { return "\(key)'s \(value) (\(pointedClass) \(pointedId) at the instant)" }
            read.append(value)
        }
        return "\(name) matches: " + (read.isEmpty ? "any object" : read.joined(separator: "; "))
    }

    /// `location 1.40 mi away > 1.0 mi` for a `$nearSphere` condition on `row`, nil for other conditions.
    private func nearSphere(
        field: String, _ condition: JSON, on row: ScratchRow, schema: QuerySchema
    ) async throws -> String? {
        let reading: NearSphereReading?
        do {
            reading = try WhereCompiler(schema: schema, related: related).nearSphereReading(field: field, condition)
        } catch {
            throw error.leanError
        }
        guard let reading else { return nil }
        guard let distance = try await row.number("\(reading.distance)") else { return "\(field) holds no GeoPoint" }
        let shown = Self.number(distance)
        let bounds = reading.bounds.map { bound in
            let met = bound.comparison == "≤" ? distance <= bound.limit : distance >= bound.limit
            let comparison = met ? bound.comparison : (bound.comparison == "≤" ? ">" : "<")
            return "\(comparison) \(Self.number(bound.limit)) \(reading.unit)"
        }
        return "\(field) \(shown) \(reading.unit) away" + (bounds.isEmpty ? "" : " " + bounds.joined(separator: ", "))
    }

    func compile(_ condition: JSON, schema: QuerySchema = .installations) throws -> BoundSQL {
        do {
            return try WhereCompiler(schema: schema, related: related).compile(condition)
        } catch {
            throw error.leanError
        }
    }

    /// Two decimals for distances (1.40), one for whole bounds (1.0).
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(format: "%.1f", value) : String(format: "%.2f", value)
    }
}
