import DeviceChannel
import Ledger
import Reports

/// What the console's pages work with: the same commands, queries, validation and reports the REST API uses,
/// called directly rather than over HTTP.
public struct ConsoleServices: Sendable {
    public let apps: AppDirectory
    public let installations: InstallationQueries
    public let pushes: PushCommands
    public let pushQueries: PushQueries
    /// Validation and recording of push requests, shared with `POST /1.1/push`.
    public let pushSubmission: PushSubmission
    /// The fan-out's targeting, for the audience preview.
    public let targeting: PushTargeting
    public let explainer: Explainer
    public let events: EventStore
    public let reports: ReportRunner
    /// Devices' presence on the own channel.
    public let channel: DeviceChannel
    /// Session cookies get `Secure` when `serve` speaks TLS.
    public let secureCookies: Bool

    public init(ledger: LedgerComponents, reports: ReportRunner, channel: DeviceChannel, secureCookies: Bool) {
        self.apps = ledger.appDirectory
        self.installations = ledger.installationQueries
        self.pushes = ledger.pushes
        self.pushQueries = ledger.pushQueries
        self.pushSubmission = PushSubmission(pushes: ledger.pushes, objects: ledger.objectQueries)
        self.targeting = PushTargeting(store: ledger.events)
        self.explainer = Explainer(store: ledger.events)
        self.events = ledger.events
        self.reports = reports
        self.channel = channel
        self.secureCookies = secureCookies
    }
}
