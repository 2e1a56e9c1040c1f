import PushCore

/// Request totals for one simulated endpoint.
public struct ProviderStatistics: Sendable, Hashable {
    public var requests: Int
    public var accepted: Int
    /// Rejections by the provider's reason (APNs `reason`, FCM `errorCode`, OAuth `error`).
    public var rejected: [String: Int]

    public init(requests: Int = 0, accepted: Int = 0, rejected: [String: Int] = [:]) {
        self.requests = requests
        self.accepted = accepted
        self.rejected = rejected
    }

    mutating func count(rejection reason: String?) {
        self.requests += 1
        if let reason {
            self.rejected[reason, default: 0] += 1
        } else {
            self.accepted += 1
        }
    }

    var json: JSON {
        .members([
            ("requests", .integer(self.requests)),
            ("accepted", .integer(self.accepted)),
            ("rejected", .members(self.rejected.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
        ])
    }
}
