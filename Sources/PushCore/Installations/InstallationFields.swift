import Foundation

/// Validation rules for `_Installation` fields (SPEC §3).
public enum InstallationFields {
    /// Fields the server assigns; a client cannot set them.
    public static let serverAssigned: Set<String> = ["objectId", "createdAt", "updatedAt"]
    public static let immutable: [String] = ["deviceType", "installationId"]
    /// Accepted `deviceType`s; `wp` is stored as `windows` (`PushPlatform(deviceType:)`).
    public static let deviceTypes: Set<String> = ["ios", "android", "windows", "wp"]
    static let stringFields: Set<String> = [
        "deviceToken", "installationId", "registrationId", "subscriptionUri", "timeZone", "localeIdentifier",
        "deviceProfile", "apnsTopic", "apnsTeamId", "appName", "appVersion", "deviceType", "vendor",
    ]

    /// The types of the fields SPEC §3 defines, for the query compiler (`QuerySchema.declaredTypes`); custom
    /// fields (`owner`, say) may hold anything.
    public static let declaredTypes: [String: FieldType] = {
        var types = Dictionary(uniqueKeysWithValues: stringFields.map { ($0, FieldType.string) })
        types["channels"] = .array
        types["badge"] = .number
        types["valid"] = .boolean
        return types
    }()

    /// Letters, digits, `_`, `-`, `=` and CJK ideographs, or empty (the broadcast channel).
    public static func isValidChannel(_ name: String) -> Bool {
        name.unicodeScalars.allSatisfy { s in
            switch s.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
            case 0x5F, 0x2D, 0x3D: return true
            case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F: return true
            default: return false
            }
        }
    }

    /// A field name a client may use: starts with a letter, then letters, digits, underscore.
    public static func isValidFieldName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 128,
            (0x41...0x5A).contains(first.value) || (0x61...0x7A).contains(first.value)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            (0x30...0x39).contains($0.value) || (0x41...0x5A).contains($0.value) || (0x61...0x7A).contains($0.value)
                || $0 == "_"
        }
    }

    /// APNs device tokens are hex (64 characters today; Apple reserves the right to lengthen them).
    public static func isValidDeviceToken(_ token: String) -> Bool {
        let n = token.utf8.count
        return n >= 32 && n <= 200 && n % 2 == 0 && token.utf8.allSatisfy(HexText.isHexDigit)
    }

    public static func isValidDeviceProfile(_ profile: String) -> Bool {
        profile.isEmpty || isValidFieldName(profile)
    }

    /// Checks one field's final value; `nil` means valid.
    static func check(_ field: String, _ value: JSON) -> LeanError? {
        if value.isNull { return nil }
        if stringFields.contains(field), value.stringValue == nil {
            return .invalidParameter("Invalid value type for field \(field): expected a string, got \(value.typeName).")
        }
        switch field {
        case "deviceType":
            if !deviceTypes.contains(value.stringValue!) {
                return .invalidParameter(
                    "Invalid deviceType: \(value.stringValue!). Expected ios, android or windows (wp).")
            }
        case "deviceToken":
            if !isValidDeviceToken(value.stringValue!) {
                return .invalidDeviceToken("Invalid device token: an APNs device token is hexadecimal.")
            }
        case "installationId":
            let id = value.stringValue!
            if id.isEmpty || id.utf8.count > 256 { return .invalidParameter("Invalid installationId.") }
        case "vendor":
            if AndroidVendor(rawValue: value.stringValue!) == nil {
                return .invalidParameter(
                    "Invalid vendor: \(value.stringValue!). Expected "
                        + AndroidVendor.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
        case "apnsTopic":
            if !OutboundText.isTopic(value.stringValue!) {
                return .invalidParameter("Invalid apnsTopic: a bundle identifier (letters, digits, . - _).")
            }
        case "apnsTeamId":
            if !OutboundText.isIdentifier(value.stringValue!) {
                return .invalidParameter("Invalid apnsTeamId: letters and digits.")
            }
        case "deviceProfile":
            if !isValidDeviceProfile(value.stringValue!) {
                return .invalidParameter(
                    "Invalid deviceProfile: it starts with a letter, then letters, digits or underscores.")
            }
        case "channels":
            guard let items = value.arrayValue else {
                return .invalidParameter("Invalid value type for field channels: expected an array.")
            }
            for item in items {
                guard let name = item.stringValue else { return .invalidChannel(item.encoded()) }
                if !isValidChannel(name) { return .invalidChannel(name) }
            }
        case "badge":
            guard let b = value.intValue, b >= 0 else {
                return .invalidParameter("Invalid badge: it must be an integer of at least 0.")
            }
        case "valid":
            if value.boolValue == nil {
                return .invalidParameter("Invalid value type for field valid: expected a boolean.")
            }
        default:
            break
        }
        return nil
    }
}
