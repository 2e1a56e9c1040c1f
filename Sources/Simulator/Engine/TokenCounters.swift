import PushCore

/// Per-token counts, kept small (8 bytes) because a load test can send to a million distinct tokens.
struct TokenCounters {
    var requests: UInt32 = 0
    var accepted: UInt32 = 0

    var json: JSON {
        .members([("requests", .integer(Int(self.requests))), ("accepted", .integer(Int(self.accepted)))])
    }
}
