import PushCore

extension PushPlatform {
    /// The provider label of the fan-out's metrics and logs.
    var providerName: String {
        switch self {
        case .ios: "apns"
        case .android: "fcm"
        case .windows: "wns"
        }
    }
}
