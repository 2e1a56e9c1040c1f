import DeviceChannel
import HTTPEdge
import Hummingbird
import Ledger
import Reports

/// Builds the REST router: request id, log line and metrics outermost, then error mapping, then
/// authentication (for `/1.1`), then the feature routes.
public enum APIRouter {
    public static func make(
        ledger: LedgerComponents, reports: ReportRunner, channel: ChannelRoutes, presence: PresenceRoutes,
        operations: OperationsRoutes = OperationsRoutes()
    ) -> Router<AppRequestContext> {
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: LeanErrorMiddleware())
        operations.register(on: router)
        channel.register(on: router)
        let clock = ledger.events.clock
        let api = router.group("/1.1").add(middleware: AuthMiddleware(apps: ledger.appDirectory, clock: clock))
        InstallationRoutes(
            installations: ledger.installations, queries: ledger.installationQueries, objects: ledger.objectQueries
        ).register(on: api)
        UserRoutes(objects: ledger.objects, queries: ledger.objectQueries, clock: clock).register(on: api)
        ObjectRoutes(objects: ledger.objects, queries: ledger.objectQueries).register(on: api)
        PushRoutes(pushes: ledger.pushes, queries: ledger.pushQueries, objects: ledger.objectQueries).register(on: api)
        OpenRoutes(opens: ledger.opens).register(on: api)
        ReportRoutes(reports: reports).register(on: api)
        presence.register(on: api)
        return router
    }
}
