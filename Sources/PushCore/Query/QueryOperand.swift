/// A value on the right-hand side of a query condition, sorted by how it must be compared: LeanCloud's typed
/// encodings (`{"__type":"Date"}`, `{"__type":"Pointer"}`) mean something other than the JSON object they are.
enum QueryOperand: Sendable, Hashable {
    case null
    /// A string, number or boolean.
    case scalar(JSON)
    /// A `Date`, as its canonical ISO text (`2024-01-01T00:00:00.000Z`), compared as an instant.
    case date(String)
    /// A `Pointer`, reduced to the three keys a stored pointer has.
    case pointer(JSON)
    /// Any other object or array, compared for exact equality.
    case composite(JSON)

    init(_ value: JSON, field: String) throws(QueryError) {
        switch value {
        case .null:
            self = .null
        case .bool, .int, .double, .string:
            self = .scalar(value)
        case .array:
            self = .composite(value)
        case .object(let fields):
            switch fields["__type"]?.stringValue {
            case "Date":
                guard let iso = fields["iso"]?.stringValue, let canonical = QueryOperand.canonicalDate(iso) else {
                    throw .invalidQuery("invalid Date value for field '\(field)'")
                }
                self = .date(canonical)
            case "Pointer":
                guard let className = fields["className"]?.stringValue, let objectId = fields["objectId"]?.stringValue
                else { throw .invalidQuery("invalid Pointer value for field '\(field)'") }
                self = .pointer(["__type": "Pointer", "className": .string(className), "objectId": .string(objectId)])
            default:
                self = .composite(value)
            }
        }
    }

    /// ISO text in LeanCloud's canonical UTC form, or nil when it is not a date.
    static func canonicalDate(_ text: String) -> String? {
        LeanDate.parse(text).map { LeanDate.format($0) }
    }
}
