/// A push's `data`, validated for every platform it will reach (SPEC §4.4).
///
/// If `data` has any of the per-platform keys `ios`, `android`, `wp` (Windows), each platform's content is its own
/// sub-object; a platform without one gets the remaining top-level keys, or nothing if there are none. Otherwise
/// `data` itself is every platform's content. Validation builds each platform's payload once with a long
/// placeholder id and the largest badge, so a push refused for size is refused when it is requested, not per device.
public struct PushData: Sendable, Hashable {
    public let json: JSON
    private let fields: [String: JSON]

    public init(_ data: JSON) throws(PushDataError) {
        guard case .object(let fields) = data else {
            throw .malformed("data must be a JSON object, not \(data.typeName)")
        }
        for key in PushPlatform.contentKeys.sorted() {
            if let value = fields[key], value.objectValue == nil {
                throw .malformed("data.\(key) must be a JSON object, not \(value.typeName)")
            }
        }
        self.json = data
        self.fields = fields
        let placeholder = String(repeating: "x", count: 32)
        if let ios = content(for: .ios) {
            _ = try APNsPayload(content: ios, notificationId: placeholder, badge: Int64(Int32.max))
        }
        if let android = content(for: .android) {
            _ = try FCMMessage.payload(from: android, notificationId: placeholder)
        }
        _ = try wnsPayload(notificationId: placeholder)
    }

    /// The content delivered to `platform`, or nil when the push has nothing for it.
    public func content(for platform: PushPlatform) -> [String: JSON]? {
        guard fields.keys.contains(where: PushPlatform.contentKeys.contains) else { return fields }
        if case .object(let own)? = fields[platform.contentKey] { return own }
        let shared = fields.filter { !PushPlatform.contentKeys.contains($0.key) }
        return shared.isEmpty ? nil : shared
    }

    /// Whether delivering to `platform` needs the installation's badge incremented first (iOS only).
    public func usesBadgeIncrement(for platform: PushPlatform) -> Bool {
        guard platform == .ios, let content = content(for: .ios) else { return false }
        return APNsPayload.usesBadgeIncrement(content)
    }

    /// The APNs payload for one device, or nil when the push has no iOS content.
    /// - Parameter badge: the device's badge after the increment, when `usesBadgeIncrement(for: .ios)`.
    public func apnsPayload(notificationId: String, badge: Int64? = nil) throws(PushDataError) -> APNsPayload? {
        guard let content = content(for: .ios) else { return nil }
        return try APNsPayload(content: content, notificationId: notificationId, badge: badge)
    }

    /// The FCM v1 message for one device, or nil when the push has no Android content.
    /// - Parameter timeToLive: seconds until the push expires (`android.ttl`), nil for FCM's default.
    public func fcmMessage(
        token: String, notificationId: String, timeToLive: Int64? = nil
    ) throws(PushDataError)
        -> FCMMessage?
    {
        guard let content = content(for: .android) else { return nil }
        return try FCMMessage(content: content, token: token, notificationId: notificationId, timeToLive: timeToLive)
    }

    /// The WNS notification for one device, or nil when the push has no Windows content.
    public func wnsPayload(notificationId: String) throws(PushDataError) -> WNSPayload? {
        guard let content = content(for: .windows) else { return nil }
        let explicit = fields[PushPlatform.windows.contentKey]?.objectValue != nil
        return try WNSPayload(content: content, notificationId: notificationId, explicit: explicit)
    }
}
