/// How `serve` runs the own device channel (SPEC §12.2).
public struct ChannelConfiguration: Sendable {
    /// Server pings every this often; a device that has not answered the previous ping by then is
    /// disconnected. Long by default: short keepalives drain phone batteries.
    public var pingInterval: Duration
    /// Grace after a missed ping before `online` reads false.
    public var pongTimeout: Duration
    /// Messages sent to one device and not yet acknowledged, at most; the rest wait for acks.
    public var window: Int
    /// How often messages past their expiration are recorded as expired.
    public var expiryInterval: Duration
    /// The WebSocket URL `GET /v1/route` hands the LeanCloud SDK (`--channel-public-url`), for deployments behind
    /// a proxy; nil: `ws://` (`wss://` when `secure`) at the request's `Host`, path `/channel`.
    public var publicURL: String?
    /// The port speaks TLS, so devices connect with `wss://`.
    public var secure = false

    public init(
        pingInterval: Duration = .seconds(240), pongTimeout: Duration = .seconds(10), window: Int = 64,
        expiryInterval: Duration = .seconds(5)
    ) {
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.window = max(1, window)
        self.expiryInterval = expiryInterval
    }

    /// How long after it was last heard from a connected device still counts as online.
    public var onlineWindow: Duration { pingInterval + pongTimeout }
}
