import HTTPTypes
import PushCore

/// One notification for one Windows device: its channel URI, the payload and the WNS headers that go with it.
public struct WNSNotification: OneDeviceRequest {
    /// WNS keeps an undelivered notification for at most this long (its `X-WNS-TTL` range).
    public static let maxTimeToLiveSeconds: Int64 = 2_592_000

    /// The installation's `subscriptionUri`: where the notification is POSTed.
    public var channelURI: String
    public var payload: WNSPayload
    /// `X-WNS-TTL`: seconds until the push expires; `nil` leaves the header out (WNS keeps it as it sees fit).
    public var timeToLive: Int64?

    public init(channelURI: String, payload: WNSPayload, timeToLive: Int64? = nil) {
        self.channelURI = channelURI
        self.payload = payload
        self.timeToLive = timeToLive
    }

    /// The request headers but `Authorization`.
    public var headers: HTTPFields {
        var fields: HTTPFields = [.contentType: payload.kind.contentType, .wnsType: payload.kind.header]
        if let timeToLive {
            // 0 would mean "no expiry" to WNS, the opposite of a push about to expire: send the least it takes.
            fields[.wnsTTL] = String(min(max(timeToLive, 1), Self.maxTimeToLiveSeconds))
        }
        return fields
    }
}
