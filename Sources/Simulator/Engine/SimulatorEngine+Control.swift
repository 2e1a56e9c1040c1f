import NIOCore
import PushCore

extension SimulatorEngine {
    /// Listing every token would turn `/_sim/stats` into a multi-megabyte answer during load tests.
    static let listedTokenLimit = 10_000

    /// `/_sim/*`: unauthenticated JSON endpoints for tests and demos. They are not counted in the statistics.
    func handleControl(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        switch (request.method, path) {
        case ("GET", "/_sim/stats"):
            return .json(200, self.statisticsJSON(listTokens: request.queryItems["tokens"] != "0"))
        case ("GET", "/_sim/requests"):
            guard let token = request.queryItems["token"], !token.isEmpty else {
                return .json(400, #"{"error":"token query parameter required"}"#)
            }
            return .json(200, self.recordingJSON(token: token))
        case ("POST", "/_sim/reset"):
            self.reset()
            return .json(200, #"{"reset":true}"#)
        case ("GET", "/_sim/config"):
            return .json(200, self.settings.withLock { $0 }.json)
        case ("POST", "/_sim/config"):
            guard let document = request.body.withUnsafeReadableBytes({ try? JSON.parse($0) }) else {
                return .json(400, #"{"error":"body must be a JSON object"}"#)
            }
            do {
                let settings = try self.update { (settings) throws(RuntimeSettings.InvalidSettings) in
                    try settings.merge(document)
                }
                return .json(200, settings.json)
            } catch {
                return .json(400, .members([("error", .string(error.message))]))
            }
        case ("POST", "/_sim/vendors/revoke"):
            // The next send with any of them gets the vendor's auth error, as after a server-side revocation.
            let revoked = self.vendorTokens.withLock { $0.revokeAll() }
            return .json(200, .members([("revoked", .integer(revoked))]))
        case ("GET", "/_sim/info"):
            guard let info = self.info.withLock({ $0 }) else { return .json(503, #"{"error":"not listening"}"#) }
            return .json(200, info.json)
        default:
            return .json(404, #"{"error":"unknown control endpoint"}"#)
        }
    }

    private func statisticsJSON(listTokens: Bool) -> JSON {
        let statistics = self.statistics()
        let recording = self.settings.withLock { $0.recording }
        var members: [(key: String, value: JSON)] = [
            ("apns", statistics.apns.json),
            ("fcm", statistics.fcm.json),
            ("oauth", statistics.oauth.json),
            ("wns", statistics.wns.json),
            ("wnsOAuth", statistics.wnsOAuth.json),
        ]
        for vendor in SimulatedProvider.androidVendors {
            members.append((vendor.rawValue, (statistics.vendors[vendor] ?? VendorStatistics()).json))
        }
        for vendor in SimulatedProvider.vendorsWithTokenExchange {
            members.append((vendor.rawValue + "Auth", (statistics.vendorAuth[vendor] ?? ProviderStatistics()).json))
        }
        members += [
            ("connections", .integer(statistics.connections)),
            ("goAways", .integer(statistics.goAways)),
            ("recording", .bool(recording.isEnabled)),
            ("distinctTokens", .integer(statistics.distinctTokens)),
        ]
        if listTokens, recording.isEnabled {
            // Only recorded tokens are known by name; the rest are counted by hash (see `SimulatorState`).
            let tokens = self.state.withLock { state in
                state.recordings.keys.sorted().prefix(Self.listedTokenLimit).map { token in
                    (token, (state.counters(for: token) ?? TokenCounters()).json)
                }
            }
            members.append(("tokens", .members(tokens)))
        }
        return .members(members)
    }

    private func recordingJSON(token: String) -> JSON {
        let (counters, recorded) = self.state.withLock { ($0.counters(for: token), $0.recordings[token] ?? []) }
        return .members([
            ("token", .string(token)),
            ("requests", .integer(Int(counters?.requests ?? 0))),
            ("accepted", .integer(Int(counters?.accepted ?? 0))),
            ("recorded", .array(recorded.map(\.json))),
        ])
    }
}
