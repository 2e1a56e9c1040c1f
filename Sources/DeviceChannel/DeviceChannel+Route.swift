import Ledger
import PushCore

/// `GET /v1/route` (SPEC §12.4): where the LeanCloud SDK opens its WebSocket. The SDK asks it, without auth
/// headers, before every first connection (research/lc-push-channel.md §1.2); the answer names this process's
/// channel as both `server` and `secondary`, since the SDK alternates between the two on reconnects and gets
/// stuck without a `secondary`.
extension DeviceChannel {
    /// How long the SDK may reuse the answer for its reconnect attempts, in seconds.
    static let routeTTL: Int64 = 3600

    /// `host`: the request's `Host`, what the device reached this process by; the URL is built from it unless
    /// `--channel-public-url` names one (a deployment behind a proxy).
    public func route(appId: String?, host: String?) async throws(LeanError) -> JSON {
        guard let appId, !appId.isEmpty else { throw .missingField("appId is required.") }
        let app: App?
        do {
            app = try await apps.find(appId)
        } catch {
            throw Self.unavailable
        }
        guard app != nil else { throw LeanError.invalidParameter("Unknown appId \(appId).", kind: .notFound) }
        let url = try webSocketURL(host: host)
        return [
            "server": .string(url), "secondary": .string(url), "ttl": .int(Self.routeTTL),
            "groupId": "pushledger",
        ]
    }

    func webSocketURL(host: String?) throws(LeanError) -> String {
        if let url = hub.configuration.publicURL { return url }
        // Only what a host (and port) can spell goes into the URL a device connects to.
        guard let host, !host.isEmpty, host.utf8.count <= 255,
            host.unicodeScalars.allSatisfy(Self.hostCharacters.contains)
        else { throw .invalidParameter("A Host header is required to name the channel's URL.") }
        return "\(hub.configuration.secure ? "wss" : "ws")://\(host)\(Self.path)"
    }

    private static let hostCharacters = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]".unicodeScalars)

    /// The answer when the database cannot be asked.
    static let unavailable = LeanError.invalidParameter(
        "The channel is unavailable; retry with backoff.", kind: .unavailable)
}
