import DeviceChannel
import Hummingbird
import Ledger
import Reports

/// Builds the REST router: request id, log line and metrics outermost, then error mapping, then
/// authentication (for `/1.1`), then the feature routes.
public enum APIRouter {
    public static func make(
        apps: AppStore, installations: InstallationStore, objects: ObjectStore, pushes: PushStore, opens: OpenStore,
        reports: ReportRunner, channel: ChannelRoutes, presence: PresenceRoutes,
        operations: OperationsRoutes = OperationsRoutes()
    ) -> Router<PushContext> {
        let router = Router(context: PushContext.self)
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: LeanErrorMiddleware())
        operations.register(on: router)
        channel.register(on: router)
        let api = router.group("/1.1").add(middleware: AuthMiddleware(apps: apps, clock: pushes.clock))
        InstallationRoutes(installations: installations, objects: objects).register(on: api)
        UserRoutes(objects: objects, clock: pushes.clock).register(on: api)
        ObjectRoutes(objects: objects).register(on: api)
        PushRoutes(pushes: pushes, objects: objects).register(on: api)
        OpenRoutes(opens: opens).register(on: api)
        ReportRoutes(reports: reports).register(on: api)
        presence.register(on: api)
        return router
    }
}
