/// A parsed JSON document, kept close to the wire: numbers keep their source text and objects keep their member order,
/// so a recorded payload is echoed back by the control endpoints exactly as the client sent it.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// The member named `key` when this is an object; the first one wins, as in most JSON readers.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// Integral numbers only; JWT times written as `1.7e9` are accepted, fractions are not.
    var intValue: Int? {
        guard let double = self.doubleValue, double.rounded() == double, abs(double) < 9.0e15 else { return nil }
        return Int(double)
    }

    var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    static func integer(_ value: Int) -> JSONValue {
        .number(String(value))
    }

    static func double(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 9.0e15 {
            return .number(String(Int(value)))
        }
        return .number(String(value))
    }
}
