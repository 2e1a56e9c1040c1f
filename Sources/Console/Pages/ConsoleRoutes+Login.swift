import Foundation
import HTTPEdge
import Hummingbird
import PushCore

/// Login with an app's master key, and logout.
extension ConsoleRoutes {
    /// The login form's CSRF token lives in its own cookie (there is no session yet to bind it to): a form
    /// posted from another site carries neither the cookie (SameSite=Strict) nor the value.
    static let loginCookie = "pl_login"

    func loginForm(_ request: Request, _ context: AppRequestContext) -> Response {
        let token = request.cookies[Self.loginCookie]?.value ?? RandomID.make(length: 32)
        var values: [String: Any] = [:]
        if request.query("out") != nil { values["notice"] = "You are signed out." }
        var response = loginPage(values, token: token, status: .ok)
        response.setCookie(cookie(Self.loginCookie, token, maxAge: 3600))
        return response
    }

    func login(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        var request = request
        let form = try await FormBody.read(&request)
        guard let token = request.cookies[Self.loginCookie]?.value, !token.isEmpty,
            ConstantTime.equal(token, form["_csrf"] ?? "")
        else { return pages.refusal(signedInAs: nil) }
        let address = context.remoteAddress ?? "unknown"
        let appId = form.text("appId") ?? ""
        var values: [String: Any] = ["appIdValue": appId]
        if let until = throttle.locked(address, now: clock.now()) {
            values["error"] = lockedMessage(address, until: until)
            return loginPage(values, token: token, status: .tooManyRequests)
        }
        if let app = try await services.apps.find(appId), ConstantTime.equal(app.masterKey, form["masterKey"] ?? "") {
            throttle.recordSuccess(address)
            let session = ConsoleSession.start(appId: app.appId, now: clock.now())
            var response = Response.redirect(to: "/console/pushes", type: .normal)
            response.setCookie(
                cookie(
                    ConsoleSession.cookieName, session.cookieValue(masterKey: app.masterKey),
                    maxAge: Int(ConsoleSession.lifetime)))
            context.logger.info("console sign-in", metadata: ["app_id": .string(app.appId)])
            return response
        }
        // Unknown app and wrong key get the same answer: the page must not reveal which app ids exist.
        context.logger.notice("console sign-in refused", metadata: ["address": .string(address)])
        if let until = throttle.recordFailure(address, now: clock.now()) {
            values["error"] = lockedMessage(address, until: until)
            return loginPage(values, token: token, status: .tooManyRequests)
        }
        values["error"] =
            "Wrong app id or master key (code 401). Use the app's master key, not its app key: "
            + "`pushledger app show --app ID` prints both."
        return loginPage(values, token: token, status: .unauthorized)
    }

    func logout() -> Response {
        var response = Response.redirect(to: "/console/login?out=1", type: .normal)
        response.setCookie(cookie(ConsoleSession.cookieName, "signed-out", maxAge: 0))
        return response
    }

    private func loginPage(_ values: [String: Any], token: String, status: HTTPResponse.Status) -> Response {
        var values = values
        values["csrf"] = token
        return pages.page("login", title: "Sign in", values, chrome: nil, status: status)
    }

    private func lockedMessage(_ address: String, until: Date) -> String {
        let seconds = max(1, Int(until.timeIntervalSince(clock.now()).rounded(.up)))
        return "Too many wrong keys from \(address): \(LoginThrottle.maxFailures) within a minute. "
            + "Sign-in from this address is locked; try again in \(seconds) s (code 429)."
    }

    /// Console cookies: HttpOnly, SameSite=Strict, scoped to /console, Secure when `serve` speaks TLS.
    func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: "/console", secure: services.secureCookies,
            httpOnly: true, sameSite: .strict)
    }
}
