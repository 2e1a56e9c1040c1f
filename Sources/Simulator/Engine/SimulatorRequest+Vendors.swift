import PushCore

/// The two body shapes the vendor APIs take.
extension SimulatorRequest {
    /// The body as JSON, nil when it is not (or was too large to keep).
    var jsonBody: JSON? {
        guard !self.bodyTooLarge else { return nil }
        return self.body.withUnsafeReadableBytes { try? JSON.parse($0) }
    }

    /// The body as `application/x-www-form-urlencoded` fields, decoded; empty when it was too large to keep.
    var formFields: [String: String] {
        guard !self.bodyTooLarge else { return [:] }
        return FormDecoding.decode(self.bodyString[...])
    }
}
