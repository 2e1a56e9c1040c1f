import Foundation

/// LeanCloud's typed encodings (`{"__type": …}`) a stored value may carry: `Pointer`, `GeoPoint`, `Date`,
/// `Bytes`. They are stored exactly as sent, so they round-trip byte for byte; this only refuses malformed
/// ones (code 111), wherever they sit in the value (arrays of Pointers, say). Other `__type`s (`File`,
/// `Relation`…) are not interpreted and are stored as plain objects.
public enum TypedValue {
    public static let invalidGeoPoint = LeanError.incorrectType("This is not a valid GeoPoint")
    public static let invalidPointer = LeanError.incorrectType("This is not a valid Pointer")
    public static let invalidDate = LeanError.incorrectType("This is not a valid Date")
    public static let invalidBytes = LeanError.incorrectType("This is not a valid Bytes")

    /// Throws code 111 for the first malformed typed value in `value`.
    public static func validate(_ value: JSON) throws(LeanError) {
        switch value {
        case .array(let items):
            for item in items { try validate(item) }
        case .object(let fields):
            switch fields["__type"]?.stringValue {
            case "Pointer":
                guard let className = fields["className"]?.stringValue, ClassName.isValid(className),
                    let objectId = fields["objectId"]?.stringValue, !objectId.isEmpty
                else { throw invalidPointer }
            case "GeoPoint":
                guard isGeoPoint(fields) else { throw invalidGeoPoint }
            case "Date":
                guard let iso = fields["iso"]?.stringValue, LeanDate.parse(iso) != nil else { throw invalidDate }
            case "Bytes":
                guard let text = fields["base64"]?.stringValue, Data(base64Encoded: text) != nil else {
                    throw invalidBytes
                }
            default:
                for item in fields.values { try validate(item) }
            }
        default:
            break
        }
    }

    /// Latitude −90…90 and longitude −180…180, inclusive, both JSON numbers.
    public static func isGeoPoint(_ fields: [String: JSON]) -> Bool {
        guard let latitude = fields["latitude"]?.doubleValue, let longitude = fields["longitude"]?.doubleValue
        else { return false }
        return (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
    }
}
