import HTTPTypes

/// WNS request and response fields (Microsoft's "Push notification service request and response headers").
extension HTTPField.Name {
    static let wnsType = HTTPField.Name("X-WNS-Type")!
    static let wnsTTL = HTTPField.Name("X-WNS-TTL")!
    static let wnsMessageId = HTTPField.Name("X-WNS-Msg-ID")!
}
