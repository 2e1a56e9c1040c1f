import NIOCore

/// One complete request as the transports hand it to the engine, whatever the HTTP version.
struct SimulatorRequest {
    var method: String
    /// Path and query, as sent.
    var path: String
    /// Names are lower-case (HTTP/2 requires it; the HTTP/1 transport folds them).
    var headers: [(name: String, value: String)]
    var body: ByteBuffer
    /// Set when the transport stopped buffering a body past ``maximumBodyBytes``.
    var bodyTooLarge: Bool

    /// Far above any provider's limit (APNs 4 KB/5 KB, FCM 4 KB of data, a vendor list request of 1000 ids, where
    /// an OPPO batch repeats its message for each id), so the provider's own check answers, yet small enough that a
    /// misbehaving client cannot make the simulator buffer without bound.
    static let maximumBodyBytes = 16 * 1024 * 1024

    func header(_ name: String) -> String? {
        for header in self.headers where header.name == name {
            return header.value
        }
        return nil
    }

    /// Searched as UTF-8 bytes: a `Character` search walks grapheme clusters and showed up in load profiles.
    var pathWithoutQuery: Substring {
        if let mark = self.path.utf8.firstIndex(of: UInt8(ascii: "?")) { return self.path[..<mark] }
        return self.path[...]
    }

    /// The decoded query parameters; only the control endpoints use them.
    var queryItems: [String: String] {
        guard let mark = self.path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return [:] }
        return FormDecoding.decode(self.path[self.path.utf8.index(after: mark)...])
    }

    var bodyString: String {
        String(buffer: self.body)
    }
}
