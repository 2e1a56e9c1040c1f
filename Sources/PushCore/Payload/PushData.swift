/// A push's `data`, validated for every platform it will reach (SPEC §4.4, §12.3).
///
/// If `data` has any of the per-platform keys `ios`, `android`, `wp` (Windows) or the vendor keys `hms`, `mi`, `mz`,
/// `vivo`, `oppo`, `honor`, `fcm`, each platform's content is its own sub-object; a platform without one gets the
/// remaining top-level keys (never another platform's key), or nothing if there are none. Otherwise `data` itself is
/// every platform's content. A vendor's content is the shared keys shallowly overridden by its key's LeanCloud keys
/// (`vendorContent`). Validation builds each platform's payload once with a long
/// placeholder id and the largest badge, so a push refused for size is refused when it is requested, not per device.
public struct PushData: Sendable, Hashable {
    public let json: JSON
    private let fields: [String: JSON]

    public init(_ data: JSON) throws(PushDataError) {
        guard case .object(let fields) = data else {
            throw .malformed("data must be a JSON object, not \(data.typeName)")
        }
        for key in Self.contentKeys.sorted() {
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
        if fields["fcm"] != nil, let fcm = content(for: .fcm(leanCloudShape: false)) {
            _ = try FCMMessage.payload(from: fcm, notificationId: placeholder)
        }
        _ = try wnsPayload(notificationId: placeholder)
        for vendor in AndroidVendor.allCases where vendor.key.map({ fields[$0] != nil }) ?? false {
            _ = try vendorContent(for: vendor, notificationId: placeholder)
        }
    }

    /// Keys of `data` that hold one platform's or one vendor's content.
    public static let contentKeys = PushPlatform.contentKeys.union(AndroidVendor.contentKeys)

    /// The content delivered to `platform` (its own channel, for Android), or nil when the push has nothing for it.
    public func content(for platform: PushPlatform) -> [String: JSON]? {
        guard fields.keys.contains(where: Self.contentKeys.contains) else { return fields }
        if case .object(let own)? = fields[platform.contentKey] { return own }
        let shared = self.shared
        return shared.isEmpty ? nil : shared
    }

    /// The top-level keys that are no platform's: what every platform without its own key gets.
    var shared: [String: JSON] { fields.filter { !Self.contentKeys.contains($0.key) } }

    /// The content for a target's route, nil when the push has nothing for it. FCM devices take `data.fcm`
    /// over `android`; a vendor's devices take the shared keys with their vendor key's LeanCloud keys over them.
    public func content(for route: DeliveryRoute) -> [String: JSON]? {
        switch route {
        case .apns: return content(for: .ios)
        case .wns: return content(for: .windows)
        case .channel(let platform): return content(for: platform)
        case .fcm(let leanCloudShape):
            // `android` is for the own channel and FCM devices saved without a vendor (SPEC §12.3).
            guard fields["fcm"]?.objectValue != nil || leanCloudShape else { return content(for: .android) }
            return vendorFields(.fcm)
        case .vendor(let vendor): return vendorFields(vendor)
        case .unknownVendor: return nil
        }
    }

    /// The shared keys overridden by `data[<vendor>]`'s LeanCloud keys (its native ones left out).
    private func vendorFields(_ vendor: AndroidVendor) -> [String: JSON]? {
        var merged = shared
        if let key = vendor.key, let own = fields[key]?.objectValue {
            for (name, value) in own where !VendorOptions.isNative(name, for: vendor) { merged[name] = value }
        }
        return merged.isEmpty ? nil : merged
    }

    /// The vendor-native keys of `data[<vendor>]` (`pushMode`, `target_user_type`, `message`…): they shape the
    /// vendor request and never reach the device.
    public func vendorOptions(for vendor: AndroidVendor) -> VendorOptions {
        guard let key = vendor.key, let own = fields[key]?.objectValue else { return VendorOptions([:]) }
        return VendorOptions(own.filter { VendorOptions.isNative($0.key, for: vendor) })
    }

    /// The content a vendor's device gets, with what its request needs read out of it, or nil when the push
    /// has nothing for the vendor.
    public func vendorContent(for vendor: AndroidVendor, notificationId: String) throws(PushDataError) -> VendorContent?
    {
        guard let content = content(for: vendor == .fcm ? .fcm(leanCloudShape: true) : .vendor(vendor)) else {
            return nil
        }
        return try VendorContent(content, notificationId: notificationId, options: vendorOptions(for: vendor))
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
        // `data.fcm` reaches every FCM device, those saved without a vendor too (SPEC §12.3).
        guard let content = content(for: .fcm(leanCloudShape: false)) else { return nil }
        return try FCMMessage(content: content, token: token, notificationId: notificationId, timeToLive: timeToLive)
    }

    /// The WNS notification for one device, or nil when the push has no Windows content.
    public func wnsPayload(notificationId: String) throws(PushDataError) -> WNSPayload? {
        guard let content = content(for: .windows) else { return nil }
        let explicit = fields[PushPlatform.windows.contentKey]?.objectValue != nil
        return try WNSPayload(content: content, notificationId: notificationId, explicit: explicit)
    }
}
