/// An event of an app's limits or usage streams (`UsageEvent`): a refused push call, or a closed day.
public enum UsageLogEvent: Sendable, Equatable {
    case rateLimited(PushRateLimited)
    case quotaRefused(PushQuotaRefused)
    case dayClosed(UsageDayClosed)

    /// The type the log stores it under (`UsageEvent`'s names).
    public var type: String {
        switch self {
        case .rateLimited: UsageEvent.rateLimited
        case .quotaRefused: UsageEvent.quotaRefused
        case .dayClosed: UsageEvent.dayClosed
        }
    }

    /// When it happened.
    public var at: String {
        switch self {
        case .rateLimited(let p): p.at
        case .quotaRefused(let p): p.at
        case .dayClosed(let p): p.at
        }
    }

    /// The stored data.
    public var json: JSON {
        switch self {
        case .rateLimited(let p):
            [
                "at": .string(p.at), "bannedUntil": .string(p.bannedUntil), "limit": .int(p.limit),
                "calls": .int(p.calls),
            ]
        case .quotaRefused(let p): ["at": .string(p.at), "quota": .int(p.quota), "used": .int(p.used)]
        case .dayClosed(let p):
            [
                "at": .string(p.at), "day": .string(p.day), "calls": .int(p.calls),
                "peakCallsPerMinute": .int(p.peakCallsPerMinute), "devices": .int(p.devices),
                "successes": .int(p.successes),
            ]
        }
    }

    /// Reads a stored event of the limits or a usage stream; nil for a type that is not a usage event.
    public init?(type: String, json: JSON) throws {
        let read = EventFields(json, event: type)
        switch type {
        case UsageEvent.rateLimited:
            self = .rateLimited(
                PushRateLimited(
                    at: try read.string("at"), bannedUntil: try read.string("bannedUntil"),
                    limit: try read.int("limit"),
                    calls: try read.int("calls")))
        case UsageEvent.quotaRefused:
            self = .quotaRefused(
                PushQuotaRefused(at: try read.string("at"), quota: try read.int("quota"), used: try read.int("used")))
        case UsageEvent.dayClosed:
            self = .dayClosed(
                UsageDayClosed(
                    at: try read.string("at"), day: try read.string("day"), calls: try read.int("calls"),
                    peakCallsPerMinute: try read.int("peakCallsPerMinute"), devices: try read.int("devices"),
                    successes: try read.int("successes")))
        default: return nil
        }
    }
}

/// `PushRateLimited`: a push call beyond `push_rate_per_minute`, and the ban it starts.
public struct PushRateLimited: Sendable, Equatable {
    public var at: String
    public var bannedUntil: String
    public var limit: Int64
    /// The calls in the minute, this one included.
    public var calls: Int64

    public init(at: String, bannedUntil: String, limit: Int64, calls: Int64) {
        self.at = at
        self.bannedUntil = bannedUntil
        self.limit = limit
        self.calls = calls
    }
}

/// `PushQuotaRefused`: a push call refused because the day's `daily_push_quota` is used up.
public struct PushQuotaRefused: Sendable, Equatable {
    public var at: String
    public var quota: Int64
    public var used: Int64

    public init(at: String, quota: Int64, used: Int64) {
        self.at = at
        self.quota = quota
        self.used = used
    }
}

/// `UsageDayClosed`: the retention job's final figures of a finished local day (`day`, `YYYY-MM-DD`).
public struct UsageDayClosed: Sendable, Equatable {
    public var at: String
    public var day: String
    public var calls: Int64
    public var peakCallsPerMinute: Int64
    public var devices: Int64
    public var successes: Int64

    public init(at: String, day: String, calls: Int64, peakCallsPerMinute: Int64, devices: Int64, successes: Int64) {
        self.at = at
        self.day = day
        self.calls = calls
        self.peakCallsPerMinute = peakCallsPerMinute
        self.devices = devices
        self.successes = successes
    }
}
