import Foundation

/// Where WNS notifications may be sent (SPEC §12.7): Microsoft's channel hosts (`*.notify.windows.com`) and
/// the exact `host[:port]` entries of the app's `wns.allowed_hosts`. A channel URI is a client's word, and
/// the request to it carries the app's WNS access token: without this list a client could aim the server at
/// loopback, the cloud's metadata address or any host of its own.
public struct WNSHosts: Sendable, Hashable {
    /// Microsoft's channel URIs all live under this domain.
    public static let providerDomain = "notify.windows.com"

    public let allowed: Set<HostPort>

    public init(allowed: Set<HostPort> = []) { self.allowed = allowed }

    /// The setting's value: comma-separated `host[:port]` entries (spaces around them ignored).
    public init(setting: String?) throws(LeanError) {
        var allowed: Set<HostPort> = []
        for raw in (setting ?? "").split(separator: ",") {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            guard let hostPort = HostPort(entry: entry) else {
                throw .invalidParameter(
                    "Setting wns.allowed_hosts takes comma-separated host[:port] entries; '\(entry)' is not one.")
            }
            allowed.insert(hostPort)
        }
        self.allowed = allowed
    }

    /// The app's list, from its settings (a malformed stored value admits nothing beyond Microsoft's hosts).
    public init(settings: [String: JSON]) {
        self = (try? WNSHosts(setting: settings[Self.settingKey]?.stringValue)) ?? WNSHosts()
    }

    public static let settingKey = "wns.allowed_hosts"

    /// Whether a notification may go to `url`'s host and port.
    public func admits(host: String, port: Int) -> Bool {
        if port == 443, host.hasSuffix("." + Self.providerDomain), host.count > Self.providerDomain.count + 1 {
            return true
        }
        return allowed.contains(HostPort(host: host, port: port))
    }

    /// The channel URI as a URL the server may send to, or why not (code 1, for the save that tries it).
    public func channelURL(_ uri: String) throws(LeanError) -> HTTPSURL {
        guard let url = HTTPSURL(uri) else {
            throw .invalidParameter(
                "Invalid subscriptionUri: a WNS channel URI is an https URL with a plain host name (no userinfo, "
                    + "escapes, fragment or spaces).")
        }
        guard admits(host: url.host, port: url.port) else {
            throw .invalidParameter(
                "Invalid subscriptionUri: \(url.host):\(url.port) is not a WNS host (*.\(Self.providerDomain)) "
                    + "nor listed in the app's \(Self.settingKey).")
        }
        return url
    }
}
