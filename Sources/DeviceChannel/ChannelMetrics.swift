import Metrics

/// The own channel's Prometheus series (through swift-metrics; `serve` picks the backend).
enum ChannelMetrics {
    static let connections = Meter(label: "pushledger_channel_connections")
    static let sent = Counter(label: "pushledger_channel_messages_sent_total")
    static let acked = Counter(label: "pushledger_channel_acks_total")
    static let expired = Counter(label: "pushledger_channel_expired_total")
    static let refused = Counter(label: "pushledger_channel_refused_total")
    /// LeanCloud SDK logins refused because the app takes only channel tokens (`channel.login=token`).
    static let sdkLoginsRefused = Counter(label: "pushledger_channel_sdk_logins_refused_total")
}
