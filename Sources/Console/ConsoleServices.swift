import API
import Ledger
import Reports

/// What the console's pages work with: the same stores, validation and reports the REST API uses, called
/// directly rather than over HTTP.
public struct ConsoleServices: Sendable {
    public let apps: AppStore
    public let installations: InstallationStore
    public let pushes: PushStore
    /// Validation and recording of push requests, shared with `POST /1.1/push`.
    public let pushSubmission: PushSubmission
    /// The fan-out's targeting, for the audience preview.
    public let targeting: PushTargeting
    public let explainer: Explainer
    public let events: EventStore
    public let reports: ReportRunner
    public let presence: PresenceRoutes
    /// Session cookies get `Secure` when `serve` speaks TLS.
    public let secureCookies: Bool

    public init(
        apps: AppStore, installations: InstallationStore, pushes: PushStore, pushSubmission: PushSubmission,
        events: EventStore, reports: ReportRunner, presence: PresenceRoutes, secureCookies: Bool
    ) {
        self.apps = apps
        self.installations = installations
        self.pushes = pushes
        self.pushSubmission = pushSubmission
        self.targeting = PushTargeting(store: events)
        self.explainer = Explainer(store: events)
        self.events = events
        self.reports = reports
        self.presence = presence
        self.secureCookies = secureCookies
    }
}
