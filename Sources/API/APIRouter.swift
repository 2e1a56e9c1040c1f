import Hummingbird
import Ledger
import Reports

/// Builds the REST router: error mapping outermost, then authentication, then the feature routes.
public enum APIRouter {
    public static func make(
        apps: AppStore, installations: InstallationStore, pushes: PushStore, opens: OpenStore, reports: ReportRunner
    ) -> Router<PushContext> {
        let router = Router(context: PushContext.self)
        router.add(middleware: LeanErrorMiddleware())
        router.get("/health") { _, _ in JSONResponse.make(["status": "ok"]) }
        let api = router.group("/1.1").add(middleware: AuthMiddleware(apps: apps))
        InstallationRoutes(installations: installations).register(on: api)
        PushRoutes(pushes: pushes).register(on: api)
        OpenRoutes(opens: opens).register(on: api)
        ReportRoutes(reports: reports).register(on: api)
        return router
    }
}
