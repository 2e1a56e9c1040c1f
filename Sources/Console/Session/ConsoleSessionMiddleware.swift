import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// Guards every signed-in console route: a valid session cookie (else to the login page), and on every POST
/// the session's CSRF token in the form (else a 403 refusal, and nothing is done). Sets the context's app as
/// a master-key caller, which is what logging in with the master key proved.
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let apps: AppDirectory
    let pages: ConsolePages
    let clock: ServiceClock

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let cookie = request.cookies[ConsoleSession.cookieName]?.value,
            let appId = ConsoleSession.claimedAppId(cookie), let app = try await apps.find(appId),
            let session = ConsoleSession.verify(cookie, masterKey: app.masterKey, now: clock.now())
        else { return Response.redirect(to: "/console/login", type: .normal) }
        var context = context
        context.app = app
        context.isMaster = true
        context.logger[metadataKey: "app_id"] = .string(app.appId)
        guard request.method == .post else { return try await next(request, context) }
        var request = request
        let form = try await FormBody.read(&request)
        guard session.acceptsCSRF(form["_csrf"], masterKey: app.masterKey) else {
            context.logger.notice("console form refused: missing or wrong CSRF token")
            return pages.refusal(signedInAs: app.appId)
        }
        return try await next(request, context)
    }
}

extension ConsolePages {
    /// The answer to a form without the right CSRF token: a page that says so, with 403.
    func refusal(signedInAs appId: String?) -> Response {
        var values: [String: Any] = [
            "code": 403,
            "message": "This form was refused: its security token (CSRF) is missing or does not belong to your "
                + "session. Nothing was changed. Reload the page you came from and submit it again.",
        ]
        if let appId { values["appId"] = appId }
        return page("error", title: "Request refused", values, chrome: nil, status: .forbidden)
    }
}
