import Crypto
import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import Ledger
import PushCore

/// Authenticates every request with one of LeanCloud's header styles (SPEC §1):
/// `X-LC-Id` + `X-LC-Key` (`<appKey>` or `<masterKey>,master`), `X-LC-Id` + `X-LC-Sign`
/// (`md5(timestamp + key),timestamp[,master]`, 15 minutes of skew), or the legacy `X-AVOSCloud-*` headers;
/// a user's session token rides along (SPEC §12.5).
public struct AuthMiddleware: RouterMiddleware {
    public typealias Context = AppRequestContext

    let apps: AppDirectory
    let clock: ServiceClock

    public init(apps: AppDirectory, clock: ServiceClock = .system) {
        self.apps = apps
        self.clock = clock
    }

    public static let signatureSkew: TimeInterval = 15 * 60

    public func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    )
        async throws -> Response
    {
        var context = context
        let h = request.headers
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { h[$0] } }
        guard let appId = header("X-LC-Id") ?? header("X-AVOSCloud-Application-Id"),
            let app = try await apps.find(appId)
        else { throw LeanErrorResponse(.unauthorized) }

        let credential: Credential
        if let sign = header("X-LC-Sign") ?? header("X-AVOSCloud-Request-Sign") {
            credential = .signature(sign)
        } else if let key = header("X-LC-Key") {
            credential = .key(key)
        } else if let master = header("X-AVOSCloud-Master-Key") {
            credential = .key(master + ",master")
        } else if let key = header("X-AVOSCloud-Application-Key") {
            credential = .key(key)
        } else {
            throw LeanErrorResponse(.unauthorized)
        }
        guard let isMaster = Self.verify(credential, app: app, now: clock.now()) else {
            throw LeanErrorResponse(.unauthorized)
        }
        context.app = app
        context.isMaster = isMaster
        // `User.become` asks for the user of the token it names, whoever is signed in already.
        context.sessionToken =
            request.query("session_token") ?? header("X-LC-Session") ?? header("X-AVOSCloud-Session-Token")
        context.logger[metadataKey: "app_id"] = .string(app.appId)
        return try await next(request, context)
    }

    enum Credential {
        case key(String)
        case signature(String)
    }

    /// Returns whether the credential is the master key, or nil when it is not valid for the app.
    static func verify(_ credential: Credential, app: App, now: Date) -> Bool? {
        switch credential {
        case .key(let value):
            if value == app.appKey { return false }
            if value == app.masterKey + ",master" { return true }
            return nil
        case .signature(let value):
            let parts = value.split(separator: ",").map(String.init)
            guard parts.count == 2 || (parts.count == 3 && parts[2] == "master"), let ms = Double(parts[1]) else {
                return nil
            }
            let master = parts.count == 3
            let signedAt = Date(timeIntervalSince1970: ms / 1000)
            guard abs(signedAt.timeIntervalSince(now)) <= signatureSkew else { return nil }
            let key = master ? app.masterKey : app.appKey
            let digest = Insecure.MD5.hash(data: Data((parts[1] + key).utf8))
            let hex = HexText.lowercase(Array(digest))
            return hex == parts[0].lowercased() ? master : nil
        }
    }
}
