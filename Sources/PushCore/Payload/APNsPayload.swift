/// The JSON body of one APNs request, built from a push's iOS content (SPEC §4.4) plus what the headers need.
///
/// LeanCloud's top-level keys (`alert`, `badge`, `sound`, `content-available`, `mutable-content`, `category`,
/// `thread-id`) go into `aps`, `title` and `subtitle` into `aps.alert`; an Apple-style `aps` object in the
/// content is merged over them; `collapse-id`, `apns-priority` and `apns-push-type` set those headers (LeanCloud's
/// REST guide); every other key travels beside `aps`, and `_nid` (the push's objectId, for open attribution) is
/// always at the top level.
public struct APNsPayload: Sendable, Hashable {
    /// Apple's limit for a regular remote notification.
    public static let maxBytes = 4096
    /// Apple's limit on `apns-collapse-id`.
    public static let maxCollapseIdBytes = 64

    public let json: JSON
    public let pushType: APNsPushType
    /// The encoded body (sorted keys), counted against `maxBytes`.
    public let body: String
    /// The `apns-priority` header: the push's `apns-priority`, else its type's default (10, or 5 for background).
    public let priority: Int
    /// The push's `collapse-id`: the `apns-collapse-id` header instead of the push's objectId.
    public let collapseId: String?

    /// Keys of the content that are headers of the request, never custom data.
    static let headerKeys: Set<String> = ["collapse-id", "apns-priority", "apns-push-type"]
    /// Keys of the content that go into `aps.alert`.
    static let alertTextKeys: Set<String> = ["title", "subtitle"]

    static let apsKeys: Set<String> = [
        "alert", "badge", "sound", "content-available", "mutable-content", "category", "thread-id",
    ]
    static let alertStringKeys: Set<String> = [
        "title", "subtitle", "body", "loc-key", "title-loc-key", "subtitle-loc-key", "action-loc-key",
        "launch-image", "action",
    ]
    static let alertListKeys: Set<String> = ["loc-args", "title-loc-args", "subtitle-loc-args"]

    /// - Parameters:
    ///   - content: the iOS content of the push's `data` (`PushData.content(for: .ios)`).
    ///   - notificationId: the push's objectId, sent as `_nid`.
    ///   - badge: the installation's badge after incrementing, used when the content's badge is `"Increment"`;
    ///     without it (e.g. `/push/devices`, which reads no installation) the badge is left out.
    public init(content: [String: JSON], notificationId: String, badge: Int64?) throws(PushDataError) {
        var aps = try APNsPayload.aps(from: content)
        if aps["badge"] == "Increment" { aps["badge"] = badge.map { .int($0) } }
        var top: [String: JSON] = [:]
        for (key, value) in content
        where !APNsPayload.apsKeys.contains(key) && !APNsPayload.headerKeys.contains(key)
            && !APNsPayload.alertTextKeys.contains(key) && key != "aps"
        {
            top[key] = value
        }
        top["aps"] = .object(aps)
        top["_nid"] = .string(notificationId)

        // Apple: a background push carries content-available and nothing the user would see or hear.
        let silent =
            aps["content-available"] != nil && aps["alert"] == nil && aps["badge"] == nil
            && aps["sound"] == nil
        json = .object(top)
        let headers = try APNsPayload.headers(from: content)
        pushType = headers.pushType ?? (silent ? .background : .alert)
        priority = headers.priority ?? pushType.priority
        collapseId = headers.collapseId
        body = json.encoded()
        let size = body.utf8.count
        guard size <= APNsPayload.maxBytes else {
            throw PushDataError(
                .payloadTooLarge(size: size, limit: APNsPayload.maxBytes),
                "APNs payload is \(size) bytes, over the \(APNsPayload.maxBytes)-byte limit")
        }
    }

    /// Whether the content asks for LeanCloud's badge increment (`"badge": "Increment"`, case-sensitive as in
    /// LeanCloud's documentation), at the top level or inside an Apple-style `aps`.
    static func usesBadgeIncrement(_ content: [String: JSON]) -> Bool {
        if case .object(let aps)? = content["aps"], let badge = aps["badge"] { return badge == "Increment" }
        return content["badge"] == "Increment"
    }

    /// The headers the content names, checked: Apple's push types, priorities 1, 5 and 10, a collapse id of
    /// printable ASCII within Apple's 64 bytes (a header value: no CR/LF can reach the request).
    static func headers(
        from content: [String: JSON]
    ) throws(PushDataError) -> (pushType: APNsPushType?, priority: Int?, collapseId: String?) {
        var pushType: APNsPushType?
        if let value = content["apns-push-type"], !value.isNull {
            guard let name = value.stringValue, let type = APNsPushType(rawValue: name) else {
                let known = APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalid("apns-push-type must be one of \(known)")
            }
            pushType = type
        }
        var priority: Int?
        if let value = content["apns-priority"], !value.isNull {
            let number = value.intValue.map(Int.init) ?? value.stringValue.flatMap { Int($0) }
            guard let number, [1, 5, 10].contains(number) else { throw .invalid("apns-priority must be 1, 5 or 10") }
            priority = number
        }
        var collapseId: String?
        if let value = content["collapse-id"], !value.isNull {
            guard let id = value.stringValue, !id.isEmpty, id.utf8.count <= maxCollapseIdBytes,
                id.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
            else {
                throw .invalid("collapse-id must be 1 to \(maxCollapseIdBytes) bytes of printable ASCII")
            }
            collapseId = id
        }
        return (pushType, priority, collapseId)
    }

    /// The validated and normalised `aps` dictionary.
    static func aps(from content: [String: JSON]) throws(PushDataError) -> [String: JSON] {
        var source: [String: JSON] = [:]
        for key in apsKeys { if let value = content[key] { source[key] = value } }
        // LeanCloud's `title` and `subtitle` are the alert's: a string alert becomes its body.
        let texts = alertTextKeys.sorted().compactMap { key in content[key].map { (key, $0) } }
        for (key, value) in texts where !value.isNull && value.stringValue == nil {
            throw .invalid("\(key) must be a string, not \(value.typeName)")
        }
        if !texts.isEmpty {
            var alert: [String: JSON]
            switch source["alert"] {
            case .object(let fields)?: alert = fields
            case .string(let body)?: alert = ["body": .string(body)]
            default: alert = [:]
            }
            for (key, value) in texts where alert[key] == nil && !value.isNull { alert[key] = value }
            if !alert.isEmpty { source["alert"] = .object(alert) }
        }
        if let explicit = content["aps"] {
            guard case .object(let fields) = explicit else {
                throw .invalid("aps must be a JSON object, not \(explicit.typeName)")
            }
            source.merge(fields) { _, explicit in explicit }
        }
        var aps: [String: JSON] = [:]
        for (key, value) in source where !value.isNull {
            switch key {
            case "alert": aps[key] = try alert(value)
            case "badge": aps[key] = try badge(value)
            case "sound":
                guard value.stringValue != nil || value.objectValue != nil else {
                    throw .invalid("sound must be a string or an object, not \(value.typeName)")
                }
                aps[key] = value
            case "content-available", "mutable-content":
                if try flag(value, key) { aps[key] = 1 }
            case "category", "thread-id":
                guard value.stringValue != nil else { throw .invalid("\(key) must be a string, not \(value.typeName)") }
                aps[key] = value
            default:
                aps[key] = value  // further Apple keys given through an explicit `aps`
            }
        }
        return aps
    }

    private static func alert(_ value: JSON) throws(PushDataError) -> JSON {
        switch value {
        case .string: return value
        case .object(let fields):
            for (key, item) in fields {
                if alertStringKeys.contains(key), item.stringValue == nil {
                    throw .invalid("alert.\(key) must be a string, not \(item.typeName)")
                }
                if alertListKeys.contains(key) {
                    guard let items = item.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                        throw .invalid("alert.\(key) must be an array of strings")
                    }
                }
            }
            return value
        default:
            throw .invalid("alert must be a string or an object, not \(value.typeName)")
        }
    }

    private static func badge(_ value: JSON) throws(PushDataError) -> JSON {
        if value == "Increment" { return value }
        guard let number = value.intValue, number >= 0 else {
            throw .invalid("badge must be a non-negative integer or \"Increment\"")
        }
        return .int(number)
    }

    /// `content-available`/`mutable-content`: Apple wants the number 1; SDKs also send booleans.
    private static func flag(_ value: JSON, _ key: String) throws(PushDataError) -> Bool {
        switch value {
        case .bool(let on): return on
        case .int(let n) where n == 0 || n == 1: return n == 1
        case .double(let d) where d == 0 || d == 1: return d == 1
        default: throw .invalid("\(key) must be 0, 1 or a boolean")
        }
    }
}
