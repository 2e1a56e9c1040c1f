import PushCore

extension PushPlatform {
    /// The `installations` column holding the token the platform's provider delivers to.
    var tokenColumn: String {
        switch self {
        case .ios: "device_token"
        case .android: "registration_id"
        case .windows: "subscription_uri"
        }
    }
}
