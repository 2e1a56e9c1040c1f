import Foundation

/// The app and its installations as they stood at an instant, in a scratch schema (see `Replayer`).
public struct ReplayedState: Sendable {
    public let scratch: ReplayScratch
    /// The app with the settings in force at the instant (today's, if the app did not exist yet).
    public let app: App
    public let at: Date
    /// Installation events folded.
    public let events: Int
}
