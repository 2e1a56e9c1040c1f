import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import PushCore

/// The web console at `/console` (issue 17): server-rendered pages over the same services as the REST API.
/// Its routes are HTML for people, not part of the REST API, so `docs/openapi.yaml` leaves them out (the rule
/// is checked by `Tests/python/test_openapi.py`).
public struct ConsoleRoutes: Sendable {
    let services: ConsoleServices
    let pages: ConsolePages
    let throttle = SharedLoginThrottle()
    let clock: ServiceClock

    public static func make(
        services: ConsoleServices, clock: ServiceClock = .system
    )
        async throws -> ConsoleRoutes
    {
        ConsoleRoutes(services: services, pages: try await ConsolePages.load(), clock: clock)
    }

    public func register(on router: Router<AppRequestContext>) {
        router.get("/") { _, _ in Response.redirect(to: "/console", type: .found) }
        let console = router.group("console").add(middleware: ConsoleErrorMiddleware(pages: pages))
        console.get("static/console.css") { _, _ in pages.asset(pages.styles, contentType: "text/css; charset=utf-8") }
        console.get("static/console.js") { _, _ in
            pages.asset(pages.script, contentType: "text/javascript; charset=utf-8")
        }
        console.get("login") { request, context in loginForm(request, context) }
        console.post("login") { request, context in try await login(request, context) }

        let signedIn = console.group().add(
            middleware: ConsoleSessionMiddleware(apps: services.apps, pages: pages, clock: clock))
        signedIn.get("") { _, _ in Response.redirect(to: "/console/pushes", type: .found) }
        signedIn.post("logout") { _, _ in logout() }
        signedIn.get("pushes") { request, context in try await pushList(request, context) }
        signedIn.get("pushes/:objectId") { request, context in try await pushDetail(request, context) }
        signedIn.post("pushes/:objectId/cancel") { request, context in try await cancelPush(request, context) }
        signedIn.get("send") { request, context in try sendForm(request, context) }
        signedIn.post("send") { request, context in try await send(request, context) }
        signedIn.get("installations") { request, context in try await installationLookup(request, context) }
        signedIn.get("reports") { request, context in try await reportPage(request, context) }
        signedIn.get("reports/download") { request, context in try await reportCSV(request, context) }
        signedIn.get("audit") { request, context in try await auditPage(request, context) }
    }

    /// The page chrome of a request that passed `ConsoleSessionMiddleware`.
    func chrome(_ request: Request, _ context: AppRequestContext, section: String) throws -> PageChrome {
        let app = try context.requireMaster()
        guard let cookie = request.cookies[ConsoleSession.cookieName]?.value,
            let session = ConsoleSession.verify(cookie, masterKey: app.masterKey, now: clock.now())
        else { throw LeanErrorResponse(.unauthorized) }
        return PageChrome(appId: app.appId, csrf: session.csrfToken(masterKey: app.masterKey), section: section)
    }
}
