import Ledger
import Logging
import Postgres
import PushCore

/// The ledger's parts wired together: one pool, the event store with its inline projections, the commands
/// (each appends events) and the queries of what they recorded, and the asynchronous projections (run by
/// `serve`, caught up by `rebuild`).
public struct LedgerComponents: Sendable {
    public let pool: PGPool
    public let events: EventStore
    public let apps: AppCommands
    public let appDirectory: AppDirectory
    public let installations: InstallationCommands
    public let installationQueries: InstallationQueries
    public let pushes: PushCommands
    public let pushQueries: PushQueries
    public let opens: OpenCommands
    public let objects: ObjectCommands
    public let objectQueries: ObjectQueries
    public let asyncProjections: [any Projection]

    /// Applied with every append, in this order (usage reads the app's time zone from `apps`).
    public static var inlineProjections: [any Projection] {
        [
            AppProjection(), InstallationProjection(), NotificationProjection(), UsageProjection(),
            PushStatsProjection(),
            PresenceProjection(), ObjectProjection(),
        ]
    }

    public init(
        databaseURL: String, maxConnections: Int = 16, clock: ServiceClock = .system,
        logger: Logger = Logger(label: "pushledger"), genericPlanLifetime: Duration = .seconds(10)
    ) {
        pool = PGPool(
            url: databaseURL, maxConnections: maxConnections, logger: logger, genericPlanLifetime: genericPlanLifetime)
        events = EventStore(pool: pool, inlineProjections: Self.inlineProjections, clock: clock)
        appDirectory = AppDirectory(pool: pool)
        apps = AppCommands(store: events, directory: appDirectory)
        installations = InstallationCommands(store: events)
        installationQueries = InstallationQueries(pool: pool)
        pushes = PushCommands(store: events)
        pushQueries = PushQueries(pool: pool)
        opens = OpenCommands(store: events)
        objects = ObjectCommands(store: events)
        objectQueries = ObjectQueries(pool: pool)
        asyncProjections = []
    }

    public var allProjections: [any Projection] { Self.inlineProjections + asyncProjections }

    public func rebuilder() -> Rebuilder {
        Rebuilder(store: events, projections: allProjections, asyncProjectorNames: asyncProjections.map(\.name))
    }

    public func projectorRunners(wakeups: WakeSignal) -> [ProjectorRunner] {
        asyncProjections.map { ProjectorRunner(store: events, projection: $0, wakeups: wakeups) }
    }
}
