import Foundation
import PushCore

/// A tenant: its keys and settings (SPEC §1).
public struct App: Sendable, Hashable {
    public let appId: String
    public let name: String
    public let appKey: String
    public let masterKey: String
    public let settings: [String: JSON]

    public func setting(_ key: String) -> JSON? { AppSettings.value(key, in: settings) }
    public func intSetting(_ key: String) -> Int64 { setting(key)?.intValue ?? 0 }
    public func boolSetting(_ key: String) -> Bool { setting(key)?.boolValue ?? false }
}
