import Foundation

/// The settings an app can have (SPEC §4.8, §5, §10), parsed from `key=value` text and validated.
/// Provider settings may be stored under a profile name (`apns.<profile>.topic`), which an installation's
/// `deviceProfile` selects.
public enum AppSettings {
    public static let integerKeys: [String: ClosedRange<Int64>] = [
        "push_rate_per_minute": 1...10_000_000,
        "daily_push_quota": 0...10_000_000_000,
        "installation_ttl_days": 1...36500,
        "max_scheduled": 0...1_000_000,
        // The own device channel (SPEC §12.2): messages kept per offline device, and for how long when the
        // push sets no expiration.
        "channel.max_pending": 1...100_000,
        "channel.ttl_days": 1...365,
    ]
    public static let booleanKeys: Set<String> = ["client_push"]
    /// `channel.secret` signs the devices' channel tokens; without it the app's master key does.
    public static let stringKeys: Set<String> = ["timezone", "channel.secret"]
    public static let apnsKeys: Set<String> = [
        "endpoint", "dev_endpoint", "key_file", "key_id", "team_id", "topic", "ca_file", "cert_file",
        "cert_key_file",
    ]
    public static let fcmKeys: Set<String> = [
        "endpoint", "token_endpoint", "project_id", "service_account_file", "ca_file",
    ]
    /// WNS: the app's package SID and client secret, exchanged at `token_endpoint` (Microsoft's by default).
    public static let wnsKeys: Set<String> = ["token_endpoint", "package_sid", "secret", "ca_file"]

    /// APNs settings that travel in request headers (`apns-topic`, the JWT's `kid` and `iss`).
    static let headerSettings: [String: @Sendable (String) -> Bool] = [
        "topic": OutboundText.isTopic, "key_id": OutboundText.isIdentifier, "team_id": OutboundText.isIdentifier,
    ]

    /// The Android vendors' settings (SPEC §12.3), plus each vendor's message classification where it throttles
    /// unclassified pushes (`hms.category`, `mi.channel_id`, `oppo.channel_id`/`oppo.category`, `vivo.category`),
    /// used when a push's `data.<vendor>` sets none, and the overseas hosts of OPPO and Meizu.
    public static let vendorKeys: [String: Set<String>] = [
        "hms": ["app_id", "client_secret", "endpoint", "token_endpoint", "intent_host", "ca_file", "category"],
        "mi": ["app_secret", "package_name", "endpoint", "global_endpoint", "ca_file", "channel_id"],
        "oppo": ["app_key", "master_secret", "endpoint", "global_endpoint", "ca_file", "channel_id", "category"],
        "vivo": ["app_id", "app_key", "app_secret", "endpoint", "ca_file", "category"],
        "mz": ["app_id", "app_secret", "endpoint", "global_endpoint", "ca_file"],
        "honor": [
            "app_id", "client_id", "client_secret", "endpoint", "token_endpoint", "intent_host", "ca_file",
        ],
    ]

    static let providerKeys: [String: Set<String>] = ["apns": apnsKeys, "fcm": fcmKeys, "wns": wnsKeys]
        .merging(vendorKeys) { a, _ in a }

    /// Checks of setting values beyond "a string", by the key's last part; nil when the value is good, else why.
    static func problem(provider: String, key: String, value: String) -> String? {
        switch key {
        case "endpoint", "token_endpoint", "global_endpoint", "dev_endpoint":
            return HTTPSURL(value) == nil ? "an https URL" : nil
        case "app_id" where provider == "vivo" || provider == "mz":
            return Int64(value).map { $0 > 0 } == true ? nil : "a positive integer"
        case "intent_host":
            return HostPort(entry: value).map { $0.port == 443 && !value.contains(":") } == true ? nil : "a host name"
        default:
            return nil
        }
    }

    public static let defaults: [String: JSON] = [
        "client_push": false, "push_rate_per_minute": 600, "daily_push_quota": 1_000_000,
        "installation_ttl_days": 90, "max_scheduled": 1000, "timezone": "UTC",
        "channel.max_pending": 100, "channel.ttl_days": 28, ChannelLogin.settingKey: .string(ChannelLogin.token),
    ]

    /// Parses one `key=value` pair into its typed JSON value; `value` empty means "remove the setting".
    public static func parse(key: String, value: String) throws(LeanError) -> JSON? {
        if value.isEmpty { return nil }
        if let range = integerKeys[key] {
            guard let n = Int64(value), range.contains(n) else {
                throw .invalidParameter("Setting \(key) takes an integer in \(range.lowerBound)...\(range.upperBound).")
            }
            return .int(n)
        }
        if booleanKeys.contains(key) {
            switch value.lowercased() {
            case "true", "1", "yes", "on": return .bool(true)
            case "false", "0", "no", "off": return .bool(false)
            default: throw .invalidParameter("Setting \(key) takes true or false.")
            }
        }
        if key == "timezone" {
            // Usage days are cut in this zone by PostgreSQL, which knows the same IANA names.
            guard TimeZone(identifier: value) != nil else {
                throw .invalidParameter("Setting timezone takes an IANA time zone name such as Asia/Shanghai.")
            }
            return .string(value)
        }
        if key == ChannelLogin.settingKey {
            guard ChannelLogin.values.contains(value) else {
                throw .invalidParameter(
                    "Setting \(key) takes \(ChannelLogin.values.joined(separator: " or ")), not \"\(value)\".")
            }
            return .string(value)
        }
        if stringKeys.contains(key) { return .string(value) }
        if key == WNSHosts.settingKey {
            // App-wide (a channel URI is checked when it is saved, before any profile applies).
            _ = try WNSHosts(setting: value)
            return .string(value)
        }
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3, parts[0] + "." == APNsTeams.settingPrefix {
            return try apnsTeamSetting(key, team: parts[1], last: parts[2], value: value)
        }
        if parts.count == 2 || parts.count == 3, let provider = parts.first, let last = parts.last {
            let known = providerKeys[provider] ?? []
            let profileOK = parts.count == 2 || InstallationFields.isValidFieldName(parts[1])
            if known.contains(last), profileOK {
                if provider == "apns", let check = headerSettings[last], !check(value) {
                    throw .invalidParameter("Setting \(key) has characters an APNs request header cannot carry.")
                }
                if let problem = problem(provider: provider, key: last, value: value) {
                    throw .invalidParameter("Setting \(key) takes \(problem), not \"\(value)\".")
                }
                return .string(value)
            }
        }
        throw .invalidParameter("Unknown setting \(key).")
    }

    /// `apns_team.<team>.key_file` / `.key_id` / `.topics`: the team id and key id travel in the JWT, the
    /// topics in `apns-topic`.
    static func apnsTeamSetting(_ key: String, team: String, last: String, value: String) throws(LeanError) -> JSON {
        guard APNsTeams.keys.contains(last), OutboundText.isIdentifier(team) else {
            throw .invalidParameter("Unknown setting \(key).")
        }
        let fits: Bool
        switch last {
        case "key_id": fits = OutboundText.isIdentifier(value)
        case "topics":
            let topics = APNsTeams.topics(value)
            fits = !topics.isEmpty && topics.allSatisfy(OutboundText.isTopic)
        default: fits = true
        }
        guard fits else {
            throw .invalidParameter("Setting \(key) has characters an APNs request header cannot carry.")
        }
        return .string(value)
    }

    /// A setting's value, falling back to its default.
    public static func value(_ key: String, in settings: [String: JSON]) -> JSON? {
        settings[key] ?? defaults[key]
    }
}
