import PushCore

/// Totals for one Android vendor look-alike, whose requests carry many registration ids each, so devices and
/// requests are counted apart.
public struct VendorStatistics: Sendable, Hashable {
    /// Every HTTP request to the vendor's paths except token exchanges (`<vendor>Auth`): sends, vivo's
    /// `saveListPayload`, and requests to no known path. The fan-out benchmark compares it with the devices sent to.
    public var httpRequests: Int
    /// Send requests: those to an endpoint that takes registration ids, whatever the answer.
    public var requests: Int
    /// Registration ids those requests carried (as far as the body could be read).
    public var devices: Int
    /// Devices the vendor reported delivered.
    public var accepted: Int
    /// Devices the vendor answered one by one as not delivered, by the code or list naming them (Xiaomi
    /// `bad_regids`, OPPO `10000`, …).
    public var rejected: [String: Int]
    /// Whole requests refused before any device was looked at, by the vendor's code (auth, shape, retry, quota).
    public var refused: [String: Int]

    public init(
        httpRequests: Int = 0, requests: Int = 0, devices: Int = 0, accepted: Int = 0, rejected: [String: Int] = [:],
        refused: [String: Int] = [:]
    ) {
        self.httpRequests = httpRequests
        self.requests = requests
        self.devices = devices
        self.accepted = accepted
        self.rejected = rejected
        self.refused = refused
    }

    mutating func count(devices: Int, answer: VendorAnswer) {
        self.requests += 1
        self.devices += devices
        if let refusal = answer.refusal {
            self.refused[refusal, default: 0] += 1
            return
        }
        for reason in answer.deviceReasons {
            if let reason {
                self.rejected[reason, default: 0] += 1
            } else {
                self.accepted += 1
            }
        }
    }

    var json: JSON {
        .members([
            ("httpRequests", .integer(self.httpRequests)),
            ("requests", .integer(self.requests)),
            ("devices", .integer(self.devices)),
            ("accepted", .integer(self.accepted)),
            ("rejected", Self.json(self.rejected)),
            ("refused", Self.json(self.refused)),
        ])
    }

    private static func json(_ counts: [String: Int]) -> JSON {
        .members(counts.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })
    }
}
