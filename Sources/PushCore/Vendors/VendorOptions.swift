/// The vendor-native keys a push may put in `data.<vendor>` (SPEC §12.3): parameters of the vendor's request
/// (a test push, a message category, a notification channel), which are not LeanCloud content and never reach
/// the device.
public struct VendorOptions: Sendable, Hashable {
    public let values: [String: JSON]

    public init(_ values: [String: JSON]) { self.values = values }

    public subscript(_ key: String) -> JSON? { values[key] }

    /// The keys each vendor reads natively, named as in its own API (research/hybrid-push.md §2–3).
    static let native: [AndroidVendor: Set<String>] = [
        .hms: ["message", "target_user_type", "category", "urgency", "bi_tag", "collapse_key", "importance"],
        .honor: ["targetUserType", "biTag", "importance"],
        .mi: ["notify_type", "notify_id", "extra", "channel_id"],
        .miIntl: ["notify_type", "notify_id", "extra", "channel_id"],
        .oppo: [
            "channel_id", "category", "notify_level", "click_action_type", "click_action_activity",
            "click_action_url", "style", "sub_title",
        ],
        .vivo: ["pushMode", "category", "classification", "skipType", "skipContent", "notifyType", "networkType"],
        .mz: ["noticeBarType"],
        .fcm: ["priority"],
    ]

    static func isNative(_ key: String, for vendor: AndroidVendor) -> Bool {
        native[vendor]?.contains(key) ?? false
    }
}
