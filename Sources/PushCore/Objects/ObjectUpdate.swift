/// The effect of one save on an object of a class other than `_Installation`, computed purely from the current
/// fields and the request body: field sets and the same `__op` operations installations take. `set` and `unset`
/// are exactly what the `ObjectUpdated` event records.
public struct ObjectUpdate: Sendable, Equatable {
    public var fields: [String: JSON]
    public var set: [String: JSON]
    public var unset: [String]

    /// `_User` fields that are secrets, never fields: the user routes take `password` out of the body before
    /// it gets here (it is hashed into `user_credentials`), and a session token is only ever issued. Whatever
    /// still carries one (a batch, say) is refused rather than stored, so no secret is ever kept in clear.
    /// Third-party `authData` logins are not supported.
    public static let refusedUserFields: Set<String> = ["password", "sessionToken", "authData"]

    public static func apply(
        body: [String: JSON], to current: [String: JSON], className: String, isCreate: Bool
    ) throws(LeanError) -> ObjectUpdate {
        var fields = current
        var set: [String: JSON] = [:]
        var unset: [String] = []
        for key in body.keys.sorted() {
            if InstallationFields.serverAssigned.contains(key) { continue }
            if className == ClassName.user, refusedUserFields.contains(key) {
                throw .invalidParameter(
                    key == "authData"
                        ? "authData is not supported: users sign up with a username and password."
                        : "\(key) cannot be set here: passwords are set by sign-up (POST /1.1/users) or "
                            + "PUT /1.1/users/:objectId, and session tokens are issued by the server.")
            }
            let newValue = try InstallationUpdate.requestedValue(key, body[key]!, current: fields[key])
            if let newValue, !newValue.isNull {
                try TypedValue.validate(newValue)
                if current[key] != newValue || isCreate { set[key] = newValue }
                fields[key] = newValue
            } else {
                fields[key] = nil
                if current[key] != nil { unset.append(key) }
            }
        }
        return ObjectUpdate(fields: fields, set: set, unset: unset)
    }

    /// Checks the types of the fields this update sets against those the class has (`known`), and answers the
    /// types it fixes for the first time. A clash, or a second GeoPoint field in the class, is code 111.
    public func newTypes(known: [String: FieldType]) throws(LeanError) -> [String: FieldType] {
        var fresh: [String: FieldType] = [:]
        for key in set.keys.sorted() {
            guard let type = FieldType(of: set[key]!) else { continue }
            if let expected = known[key] {
                guard expected == type else {
                    throw .incorrectType(
                        "Invalid value type for field '\(key)', expected \(expected) but got \(type)")
                }
                continue
            }
            if type == .geoPoint {
                let others =
                    known.filter { $0.value == .geoPoint }.map(\.key)
                    + fresh.filter { $0.value == .geoPoint }
                    .map(\.key)
                if let other = others.sorted().first {
                    throw .incorrectType(
                        "Field '\(key)' cannot be a GeoPoint: the class already has GeoPoint field '\(other)', "
                            + "and a class has at most one")
                }
            }
            fresh[key] = type
        }
        return fresh
    }
}
