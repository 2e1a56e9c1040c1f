import Ledger
import Logging
import Postgres
import PushCore

/// The ledger's parts wired together: one pool, the event store with its inline projections, the stores
/// commands go through, and the asynchronous projections (run by `serve`, caught up by `rebuild`).
public struct LedgerComponents: Sendable {
    public let pool: PGPool
    public let events: EventStore
    public let apps: AppStore
    public let installations: InstallationStore
    public let pushes: PushStore
    public let opens: OpenStore
    public let objects: ObjectStore
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
        apps = AppStore(store: events)
        installations = InstallationStore(store: events)
        pushes = PushStore(store: events)
        opens = OpenStore(store: events)
        objects = ObjectStore(store: events)
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
