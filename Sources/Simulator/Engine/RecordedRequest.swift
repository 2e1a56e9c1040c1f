import Foundation
import PushCore

/// One request as `GET /_sim/requests` shows it, with the answer it got.
struct RecordedRequest {
    var provider: SimulatedProvider
    var method: String
    var path: String
    var headers: [(name: String, value: String)]
    /// Copied out of the receive buffer so a recording never pins a large network buffer in memory.
    var body: String
    var status: Int
    var reason: String?
    var receivedAt: Date
    /// A form body is shown as an object of its fields, as the vendor look-alikes read it.
    var isForm = false

    /// Form fields that carry JSON text, shown parsed when they parse (OPPO's `messages`, Meizu's `messageJson`,
    /// Xiaomi's `payload`).
    static let jsonFormFields: Set<String> = ["messages", "messageJson", "payload"]

    var json: JSON {
        let payload = self.isForm ? Self.formPayload(self.body) : (try? JSON.parse(self.body)) ?? .string(self.body)
        return .members([
            ("provider", .string(self.provider.rawValue)),
            ("method", .string(self.method)),
            ("path", .string(self.path)),
            ("headers", .members(self.headers.map { ($0.name, .string($0.value)) })),
            ("payload", payload),
            ("status", .integer(self.status)),
            ("reason", self.reason.map(JSON.string) ?? .null),
            ("receivedAt", .integer(Int((self.receivedAt.timeIntervalSince1970 * 1000).rounded()))),
        ])
    }

    private static func formPayload(_ body: String) -> JSON {
        .object(
            FormDecoding.decode(body[...]).reduce(into: [:]) { fields, field in
                var parsed: JSON?
                if Self.jsonFormFields.contains(field.key) { parsed = try? JSON.parse(field.value) }
                fields[field.key] = parsed ?? .string(field.value)
            })
    }
}
