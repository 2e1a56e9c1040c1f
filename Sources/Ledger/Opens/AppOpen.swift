import Foundation
import PushCore

/// One app open reported by a client (SPEC §6), before it is attributed and recorded.
public struct AppOpen: Sendable, Equatable {
    public enum Installation: Sendable, Equatable {
        case objectId(String)
        case installationId(String)
    }

    /// `app`: a plain launch, never attributed to a push. `push`: opened from a notification; attributed to
    /// the push named by `notificationId`, else to the last push delivered within 24 hours.
    public enum Kind: String, Sendable {
        case app, push
    }

    public var installation: Installation
    public var kind: Kind
    /// The payload's `_nid` (the push objectId), when the client passed it.
    public var notificationId: String?
    /// When the app was opened; the time of the call when absent.
    public var at: Date?

    public init(installation: Installation, kind: Kind, notificationId: String? = nil, at: Date? = nil) {
        self.installation = installation
        self.kind = kind
        self.notificationId = notificationId
        self.at = at
    }

    /// How long a push open is attributed to the last delivery without an explicit id.
    public static let attributionWindow: TimeInterval = 24 * 3600
    /// Clocks of devices drift; an open claimed further in the future than this is refused.
    public static let allowedClockSkew: TimeInterval = 300
}
