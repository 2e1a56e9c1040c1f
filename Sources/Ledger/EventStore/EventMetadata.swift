import PushCore

/// Who caused an event: recorded with every event for the audit report (SPEC §7).
public struct EventMetadata: Sendable, Hashable {
    /// `master`, `client` or `system`.
    public var keyKind: String
    public var address: String?
    public var userAgent: String?
    public var requestId: String?

    public init(keyKind: String, address: String? = nil, userAgent: String? = nil, requestId: String? = nil) {
        self.keyKind = keyKind
        self.address = address
        self.userAgent = userAgent
        self.requestId = requestId
    }

    public static func system(_ what: String) -> EventMetadata {
        EventMetadata(keyKind: "system", userAgent: "pushledger/\(what)")
    }

    public var json: JSON {
        var o: [String: JSON] = ["keyKind": .string(keyKind)]
        if let address { o["address"] = .string(address) }
        if let userAgent { o["userAgent"] = .string(userAgent) }
        if let requestId { o["requestId"] = .string(requestId) }
        return .object(o)
    }
}
