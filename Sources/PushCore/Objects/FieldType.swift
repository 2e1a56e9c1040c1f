/// The type a class field takes on with its first value (Parse's schema inference). Later values of the field
/// must have the same type; a Pointer's type includes the class it points at.
public enum FieldType: Sendable, Hashable, CustomStringConvertible {
    case string
    case number
    case boolean
    case array
    case object
    case pointer(className: String)
    case geoPoint
    case date
    case bytes

    /// The type of a (validated) value; nil for null, which has none (it unsets the field).
    public init?(of value: JSON) {
        switch value {
        case .null: return nil
        case .string: self = .string
        case .int, .double: self = .number
        case .bool: self = .boolean
        case .array: self = .array
        case .object(let fields):
            switch fields["__type"]?.stringValue {
            case "Pointer": self = .pointer(className: fields["className"]?.stringValue ?? "")
            case "GeoPoint": self = .geoPoint
            case "Date": self = .date
            case "Bytes": self = .bytes
            default: self = .object
            }
        }
    }

    /// As stored in `class_fields.type` and named in error messages: `String`, `Pointer<_User>`, `GeoPoint`…
    public var description: String {
        switch self {
        case .string: return "String"
        case .number: return "Number"
        case .boolean: return "Boolean"
        case .array: return "Array"
        case .object: return "Object"
        case .pointer(let className): return "Pointer<\(className)>"
        case .geoPoint: return "GeoPoint"
        case .date: return "Date"
        case .bytes: return "Bytes"
        }
    }

    /// Reads a stored name back; nil for a name this version does not know.
    public init?(stored name: String) {
        switch name {
        case "String": self = .string
        case "Number": self = .number
        case "Boolean": self = .boolean
        case "Array": self = .array
        case "Object": self = .object
        case "GeoPoint": self = .geoPoint
        case "Date": self = .date
        case "Bytes": self = .bytes
        default:
            guard name.hasPrefix("Pointer<"), name.hasSuffix(">") else { return nil }
            self = .pointer(className: String(name.dropFirst(8).dropLast()))
        }
    }
}
