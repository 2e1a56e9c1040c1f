import Ledger
import PushCore

/// One vendor profile's settings (SPEC §12.3): `<vendor>.<key>` for installations without a `deviceProfile`
/// (LeanCloud's `_default`), `<vendor>.<profile>.<key>` for a named profile. A named profile's keys are complete
/// on their own: it does not inherit the unprefixed ones, so a profile without keys has no credentials.
public struct VendorSettings: Sendable, Hashable {
    public let vendorKey: String
    public let profile: String
    private let values: [String: String]

    public init(app: App, vendorKey: String, profile: String?) {
        self.vendorKey = vendorKey
        self.profile = profile ?? ""
        let prefix = self.profile.isEmpty ? vendorKey + "." : "\(vendorKey).\(self.profile)."
        var values: [String: String] = [:]
        for (key, value) in app.settings where key.hasPrefix(prefix) {
            let name = String(key.dropFirst(prefix.count))
            // `hms.app_id` must not read `hms.p1.app_id` as a key `p1.app_id`.
            guard !name.contains("."), let text = value.stringValue else { continue }
            values[name] = text
        }
        self.values = values
    }

    public subscript(_ key: String) -> String? { values[key].flatMap { $0.isEmpty ? nil : $0 } }

    /// The setting's name as an operator writes it, for messages.
    public func name(_ key: String) -> String {
        profile.isEmpty ? "\(vendorKey).\(key)" : "\(vendorKey).\(profile).\(key)"
    }

    /// The credentials a vendor needs, or `NoCredentials` naming the first one missing.
    public func require(_ keys: [String]) throws(ProviderRegistry.Failure) -> [String] {
        try keys.map { key throws(ProviderRegistry.Failure) in
            guard let value = self[key] else { throw .noCredentials(name(key)) }
            return value
        }
    }

    /// A value for the cache key of the client made from these settings.
    var fingerprint: String { values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&") }
}
