/// An event's data read by key, a missing required field being a `MalformedPayload` of its kind.
struct EventFields {
    let json: JSON
    let event: String

    init(_ json: JSON, event: String) {
        self.json = json
        self.event = event
    }

    func string(_ key: String) throws -> String {
        guard let value = json[key]?.stringValue else { throw MalformedPayload(event: event) }
        return value
    }

    func optionalString(_ key: String) -> String? { json[key]?.stringValue }

    func object(_ key: String) -> [String: JSON]? { json[key]?.objectValue }

    func int(_ key: String) throws -> Int64 {
        guard let value = json[key]?.intValue else { throw MalformedPayload(event: event) }
        return value
    }

    /// A list of strings; absent reads as empty, as the writers that leave it out mean.
    func strings(_ key: String) -> [String] { (json[key]?.arrayValue ?? []).compactMap(\.stringValue) }
}
