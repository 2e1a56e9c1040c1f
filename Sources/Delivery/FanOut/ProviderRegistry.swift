import Curl
import Foundation
import Ledger
import Logging
import PushCore

/// Builds and caches provider clients from an app's settings. An installation's `deviceProfile` selects the
/// `apns.<profile>.*` / `fcm.<profile>.*` / `wns.<profile>.*` settings and then takes priority over `prod`; without a profile the
/// default settings apply and `prod` picks the production or development APNs endpoint (SPEC §5).
public actor ProviderRegistry {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case noCredentials(String)
        case badCredentials(String)
        /// Several of the app's APNs teams could sign for the device (`APNsTeams.Choice.ambiguous`).
        case ambiguousTeam([String])
        public var description: String {
            switch self {
            case .noCredentials(let what): return "NoCredentials(\(what))"
            case .badCredentials(let what): return "InvalidProviderCredentials(\(what))"
            case .ambiguousTeam(let teams): return "AmbiguousAPNsTeam(\(teams.joined(separator: ",")))"
            }
        }
        /// Configured but unusable credentials fail the whole push with this text (naming the setting); missing
        /// ones only fail the targets of that provider, since an app need not use every provider.
        public var pushFailure: String? {
            if case .badCredentials(let what) = self { return "unusable provider credentials: \(what)" }
            return nil
        }

        /// The reason recorded for every target this failure affects.
        public var reason: String {
            switch self {
            case .noCredentials: return "NoCredentials"
            case .badCredentials: return "InvalidProviderCredentials"
            case .ambiguousTeam: return "AmbiguousAPNsTeam"
            }
        }
    }

    private var apns: [String: APNsClient] = [:]
    private var fcm: [String: FCMClient] = [:]
    private var wns: [String: WNSClient] = [:]
    private var vendors: [String: any VendorClient] = [:]
    /// Vendors whose daily quota an app used up (SPEC §12.3 `VendorQuota`), until the end of the app's day.
    private var quotaStops: [String: Date] = [:]
    private let logger: Logger
    /// The clock every client reads (token ages, Retry-After) and every retry waits on.
    public nonisolated let clock: ServiceClock
    /// The HTTP/2 library of the APNs and FCM clients it builds.
    public nonisolated let transport: TransportLibrary

    public init(
        transport: TransportLibrary = .standard, clock: ServiceClock = .system,
        logger: Logger = Logger(label: "pushledger.providers")
    ) {
        self.transport = transport
        self.clock = clock
        self.logger = logger
    }

    static func setting(_ app: App, _ provider: String, _ profile: String?, _ key: String) -> String? {
        if let profile, !profile.isEmpty, let v = app.settings["\(provider).\(profile).\(key)"]?.stringValue {
            return v
        }
        return app.settings["\(provider).\(key)"]?.stringValue
    }

    static func hasProfile(_ app: App, _ provider: String, _ profile: String?) -> Bool {
        guard let profile, !profile.isEmpty else { return false }
        return app.settings.keys.contains { $0.hasPrefix("\(provider).\(profile).") }
    }

    /// The APNs client for a target and the topic it sends with unless the push or the installation names one:
    /// by the device's profile (`apns.<profile>.*`) or the default settings, or, when `team` is given (an app
    /// with keys of several teams, `APNsTeams`), that team's key at the default endpoints.
    public func apnsClient(
        app: App, profile: String?, prod: String, team: APNsTeams.Team? = nil
    ) throws(Failure) -> (client: APNsClient, topic: String?) {
        let usesProfile = team == nil && Self.hasProfile(app, "apns", profile)
        let p = usesProfile ? profile : nil
        func s(_ key: String) -> String? { Self.setting(app, "apns", p, key) }
        let endpoint: String
        if usesProfile {
            endpoint = s("endpoint") ?? APNsConfiguration.production
        } else if prod == "dev" {
            endpoint = s("dev_endpoint") ?? APNsConfiguration.development
        } else {
            endpoint = s("endpoint") ?? APNsConfiguration.production
        }
        let authentication: APNsAuthentication
        // The setting an unreadable or invalid credential came from, named in the push's failure status.
        let prefix = p.map { "apns.\($0)." } ?? "apns."
        let credentialSetting: String
        let topic: String?
        if let team {
            authentication = .token(keyFile: team.keyFile, keyId: team.keyId, teamId: team.id)
            let named = APNsTeams.settingPrefix + team.id + ".key_file"
            credentialSetting = app.settings[named] != nil ? named : "apns.key_file"
            topic = team.topics.first
        } else if let keyFile = s("key_file"), let keyId = s("key_id"), let teamId = s("team_id") {
            authentication = .token(keyFile: keyFile, keyId: keyId, teamId: teamId)
            credentialSetting = prefix + "key_file"
            topic = s("topic")
        } else if let cert = s("cert_file") {
            authentication = .certificate(certificateFile: cert, keyFile: s("cert_key_file"), keyPassword: nil)
            credentialSetting = prefix + "cert_file"
            topic = s("topic")
        } else {
            throw .noCredentials("apns key_file/key_id/team_id or cert_file for \(app.appId)")
        }
        let key = "\(app.appId)|\(endpoint)|\(authentication)|\(s("ca_file") ?? "")"
        if let client = apns[key] { return (client, topic) }
        let configuration = APNsConfiguration(
            endpoint: endpoint, authentication: authentication, topic: topic ?? "", caFile: s("ca_file"),
            transport: transport)
        do {
            let client = try APNsClient(configuration: configuration, logger: logger, clock: clock)
            apns[key] = client
            return (client, topic)
        } catch {
            throw .badCredentials("\(credentialSetting): \(error)")
        }
    }

    public func fcmClient(app: App, profile: String?) throws(Failure) -> FCMClient {
        let p = Self.hasProfile(app, "fcm", profile) ? profile : nil
        func s(_ key: String) -> String? { Self.setting(app, "fcm", p, key) }
        guard let account = s("service_account_file") else {
            throw .noCredentials("fcm service_account_file for \(app.appId)")
        }
        let configuration = FCMConfiguration(
            endpoint: s("endpoint") ?? FCMConfiguration.production, tokenEndpoint: s("token_endpoint"),
            projectId: s("project_id"), serviceAccountFile: account, caFile: s("ca_file"), transport: transport)
        let key =
            "\(app.appId)|\(configuration.endpoint)|\(account)|\(s("token_endpoint") ?? "")|\(s("project_id") ?? "")"
        if let client = fcm[key] { return client }
        do {
            let client = try FCMClient(configuration: configuration, logger: logger, clock: clock)
            fcm[key] = client
            return client
        } catch {
            throw .badCredentials("\(p.map { "fcm.\($0)." } ?? "fcm.")service_account_file: \(error)")
        }
    }

    /// The WNS client for a target: `wns.package_sid` and `wns.secret` (or a profile's), at `wns.token_endpoint`.
    public func wnsClient(app: App, profile: String?) throws(Failure) -> WNSClient {
        let p = Self.hasProfile(app, "wns", profile) ? profile : nil
        func s(_ key: String) -> String? { Self.setting(app, "wns", p, key) }
        guard let packageSid = s("package_sid"), let secret = s("secret") else {
            throw .noCredentials("wns package_sid/secret for \(app.appId)")
        }
        let configuration = WNSConfiguration(
            tokenEndpoint: s("token_endpoint") ?? WNSConfiguration.productionTokenEndpoint, packageSid: packageSid,
            secret: secret, caFile: s("ca_file"), hosts: WNSHosts(settings: app.settings))
        // The secret is part of the key so that a changed secret gets a new client (and a new access token), the
        // host list so that a narrowed one applies at once.
        let key =
            "\(app.appId)|\(configuration.tokenEndpoint)|\(packageSid)|\(secret)|\(s("ca_file") ?? "")|"
            + configuration.hosts.allowed.map(\.description).sorted().joined(separator: ",")
        if let client = wns[key] { return client }
        do {
            let client = try WNSClient(configuration: configuration, logger: logger, clock: clock)
            wns[key] = client
            return client
        } catch {
            throw .badCredentials("\(p.map { "wns.\($0)." } ?? "wns.")package_sid: \(error)")
        }
    }

    /// The client of an Android vendor for a target's profile (SPEC §12.3): `<vendor>.<key>` for no profile,
    /// `<vendor>.<profile>.<key>` only for a named one (no fallback to the unprefixed keys, as LeanCloud's
    /// `_default`); `NoCredentials` naming the missing setting otherwise.
    func vendorClient(app: App, vendor: AndroidVendor, profile: String?) throws(Failure) -> any VendorClient {
        guard let key = vendor.key else { throw .noCredentials(vendor.rawValue) }
        let settings = VendorSettings(app: app, vendorKey: key, profile: profile)
        let cacheKey = "\(app.appId)|\(vendor.rawValue)|\(settings.profile)|\(settings.fingerprint)"
        if let client = vendors[cacheKey] { return client }
        let client = try VendorClients.make(vendor, settings: settings, clock: clock, logger: logger)
        vendors[cacheKey] = client
        return client
    }

    private static func quotaKey(_ app: App, _ vendor: AndroidVendor, _ profile: String?) -> String {
        "\(app.appId)|\(vendor.key ?? vendor.rawValue)|\(profile ?? "")"
    }

    /// Whether the app's day quota at `vendor` is used up (its devices are `VendorQuota` without a request).
    func isOverQuota(app: App, vendor: AndroidVendor, profile: String?, now: Date) -> Bool {
        guard let until = quotaStops[Self.quotaKey(app, vendor, profile)] else { return false }
        return now < until
    }

    /// The vendor answered that the app's daily quota is used up: no more requests to it until the app's day
    /// ends (in its `timezone`), the other vendors untouched.
    func stopForTheDay(app: App, vendor: AndroidVendor, profile: String?, now: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: app.settings["timezone"]?.stringValue ?? "UTC") ?? .gmt
        let start = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? now.addingTimeInterval(86_400)
        quotaStops[Self.quotaKey(app, vendor, profile)] = end
        logger.warning(
            "\(vendor.rawValue) daily quota of app \(app.appId) reached: its devices are VendorQuota errors until \(end)"
        )
    }

    public func shutdown() async {
        for client in apns.values { await client.shutdown() }
        for client in fcm.values { await client.shutdown() }
        for client in wns.values { await client.shutdown() }
        for client in vendors.values { await client.shutdown() }
        apns.removeAll()
        fcm.removeAll()
        wns.removeAll()
        vendors.removeAll()
    }
}
