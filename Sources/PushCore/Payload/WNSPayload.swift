/// The body of one WNS notification, built from a push's Windows content (`data.wp`, or the shared data).
///
/// LeanCloud's Windows keys are `title`, `alert` and `wp-param` (the toast's launch argument). An explicit `wp`
/// object may also choose the notification type with `type` (`toast`, `tile`, `badge`, `raw`, with or without
/// the `wns/` prefix), give a `badge` (a count or a glyph name) for a badge, or the finished `xml` of a toast,
/// tile or badge. Without a type the notification is a toast when there is a title or alert to show and raw
/// otherwise (the analogue of a silent push): the raw body is the content as JSON with `_nid`, so the app can
/// attribute it. Shared data is read leniently: its `type` and `xml` keys belong to the other platforms, and
/// values that are not text are not shown.
public struct WNSPayload: Sendable, Hashable {
    /// WNS refuses notifications over 5 KB.
    public static let maxPayloadBytes = 5120

    /// The `X-WNS-Type` of a notification.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case toast
        case tile
        case badge
        case raw

        /// The `X-WNS-Type` header value.
        public var header: String { "wns/" + rawValue }
        /// XML for the visual types, bytes for raw.
        public var contentType: String { self == .raw ? "application/octet-stream" : "text/xml" }
    }

    public let kind: Kind
    public let body: [UInt8]

    /// - Parameters:
    ///   - content: the Windows content (`PushData.content(for: .windows)`).
    ///   - notificationId: the push's objectId, sent as `_nid` in raw notifications.
    ///   - explicit: the content is the push's own `wp` object, whose every key is meant for Windows.
    public init(content: [String: JSON], notificationId: String, explicit: Bool) throws(PushDataError) {
        let title = try Self.text(content["title"], key: "title", strict: explicit)
        var alert: String?
        var alertTitle: String?
        switch content["alert"] {
        case .object(let fields)?:
            // iOS-style alert dictionaries in shared data still show something sensible on Windows.
            alert = fields["body"]?.stringValue
            alertTitle = fields["title"]?.stringValue
        case let value:
            alert = try Self.text(value, key: "alert", strict: explicit)
        }
        let launch = try Self.text(content["wp-param"], key: "wp-param", strict: explicit)
        let xml = explicit ? try Self.text(content["xml"], key: "xml", strict: true) : nil
        let texts = [title ?? alertTitle, alert].compactMap { $0 }
        var kind: Kind = texts.isEmpty && xml == nil ? .raw : .toast
        if explicit, let requested = try Self.text(content["type"], key: "type", strict: true) {
            let name = requested.hasPrefix("wns/") ? String(requested.dropFirst(4)) : requested
            guard let chosen = Kind(rawValue: name) else {
                throw .invalid("wp.type must be toast, tile, badge or raw, not \(requested)")
            }
            kind = chosen
        }
        let body: String
        switch (kind, xml) {
        case (.raw, _):
            var raw = content
            raw["_nid"] = .string(notificationId)
            body = JSON.object(raw).encoded()
        case (_, let xml?):
            body = xml
        case (.toast, nil):
            guard !texts.isEmpty else { throw .invalid("a Windows toast needs a title or an alert") }
            body = Self.toast(texts: texts, launch: launch)
        case (.tile, nil):
            guard !texts.isEmpty else { throw .invalid("a Windows tile needs a title, an alert or its xml") }
            body = Self.tile(texts: texts)
        case (.badge, nil):
            body = "<badge value=\"\(Self.escaped(try Self.badgeValue(content["badge"])))\"/>"
        }
        let bytes = Array(body.utf8)
        guard bytes.count <= Self.maxPayloadBytes else {
            throw PushDataError(
                .payloadTooLarge(size: bytes.count, limit: Self.maxPayloadBytes),
                "WNS payload is \(bytes.count) bytes, over the \(Self.maxPayloadBytes)-byte limit")
        }
        self.kind = kind
        self.body = bytes
    }

    /// `<toast launch="…"><visual><binding template="ToastGeneric"><text>…</text>…</binding></visual></toast>`.
    static func toast(texts: [String], launch: String?) -> String {
        let attribute = launch.map { " launch=\"\(escaped($0))\"" } ?? ""
        return "<toast\(attribute)><visual><binding template=\"ToastGeneric\">\(elements(texts))</binding></visual>"
            + "</toast>"
    }

    static func tile(texts: [String]) -> String {
        "<tile><visual><binding template=\"TileWide\">\(elements(texts))</binding></visual></tile>"
    }

    private static func elements(_ texts: [String]) -> String {
        texts.map { "<text>\(escaped($0))</text>" }.joined()
    }

    /// A count (0 clears the badge) or one of Windows' glyph names (`alert`, `attention`, …).
    private static func badgeValue(_ value: JSON?) throws(PushDataError) -> String {
        if let count = value?.intValue, count >= 0 { return String(count) }
        if let glyph = value?.stringValue, !glyph.isEmpty,
            glyph.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic })
        {
            return glyph
        }
        throw .invalid("a Windows badge needs wp.badge: a count of at least 0 or a glyph name")
    }

    /// A text value; in strict (explicit `wp`) content anything but a string or null is refused.
    private static func text(_ value: JSON?, key: String, strict: Bool) throws(PushDataError) -> String? {
        guard let value, !value.isNull else { return nil }
        if let text = value.stringValue { return text }
        if strict { throw .invalid("wp.\(key) must be a string, not \(value.typeName)") }
        return nil
    }

    /// Text for XML content and attribute values: the five markup characters as entities, and the control
    /// characters XML 1.0 cannot carry at all dropped, so no user text can break the document.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
