import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import Ledger
import PushCore

/// `_User` as the SDKs use it (SPEC §12.5): sign-up, login, `users/me`, a user's own row and session refresh,
/// under `/1.1/users…` and `/1.1/classes/_User…` (whose literal path wins over `classes/:className`). The
/// password is taken out of every body before anything else reads it, hashed, and never answered, logged or
/// recorded; `ObjectCommands+Users` keeps the hashes outside the log.
public struct UserRoutes: Sendable {
    let objects: ObjectCommands
    let queries: ObjectQueries
    let throttle: UserLoginThrottle
    let clock: ServiceClock

    public init(objects: ObjectCommands, queries: ObjectQueries, clock: ServiceClock = .system) {
        self.objects = objects
        self.queries = queries
        self.throttle = UserLoginThrottle()
        self.clock = clock
    }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        for base in ["users", "classes/_User"] {
            router.post(RouterPath(base)) { request, context in try await signUp(request, context) }
            router.get(RouterPath(base)) { request, context in
                try await ObjectRoutes(objects: objects, queries: queries).list(
                    request, context, className: ClassName.user)
            }
            router.get(RouterPath(base + "/:objectId")) { request, context in try await get(request, context) }
            router.put(RouterPath(base + "/:objectId")) { request, context in try await update(request, context) }
            router.delete(RouterPath(base + "/:objectId")) { request, context in try await delete(request, context) }
        }
        router.get("users/me") { request, context in try await me(request, context) }
        router.get("login") { request, context in try await logIn(request, context) }
        router.post("login") { request, context in try await logIn(request, context) }
        router.put("users/:objectId/refreshSessionToken") { request, context in try await refresh(request, context) }
        router.post("users/:objectId/refreshSessionToken") { request, context in try await refresh(request, context) }
    }

    /// `{"username","password",…}`: the app key signs a user up (both required) and gets its first session;
    /// the master key may also create a user without a password, who cannot log in.
    func signUp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        var body = try await request.jsonObject()
        let password = try Self.takePassword(&body)
        if !context.isMaster || password != nil {
            guard let username = body["username"]?.stringValue, !username.isEmpty else {
                throw LeanError.usernameMissing
            }
            guard password != nil else { throw LeanError.passwordMissing }
        }
        var session: (credentials: ObjectCommands.NewCredentials, token: String)?
        if let password { session = try await Self.newCredentials(password) }
        let created = try await objects.signUp(
            appId: app.appId, body: body, credentials: session?.credentials, metadata: context.metadata(for: request))
        var out: [String: JSON] = ["objectId": .string(created.objectId), "createdAt": .string(created.createdAt)]
        if let session { out["sessionToken"] = .string(session.token) }
        var headers = HTTPFields()
        headers[.location] = ObjectRoutes.location(ClassName.user, created.objectId)
        return JSONResponse.make(.object(out), status: .created, headers: headers)
    }

    /// `POST /1.1/login` with a JSON body, or `GET /1.1/login?username=&password=`: the user and a new session.
    /// Failures are throttled per username and per address (code 219 with `Retry-After`).
    func logIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let params: [String: JSON] =
            request.method == .get
            ? [
                "username": request.query("username").map(JSON.string) ?? .null,
                "password": request.query("password").map(JSON.string) ?? .null,
            ]
            : try await request.jsonObject()
        guard let username = params["username"]?.stringValue, !username.isEmpty else { throw LeanError.usernameMissing }
        guard let password = params["password"]?.stringValue, !password.isEmpty else { throw LeanError.passwordMissing }
        let attempt = UserLoginThrottle.Attempt(appId: app.appId, username: username, address: context.remoteAddress)
        let at = clock.now()
        if let retryAfter = throttle.refusal(attempt, now: at) {
            throw LeanError.loginThrottled(retryAfter: retryAfter)
        }
        guard let found = try await queries.credentials(appId: app.appId, username: username) else {
            throttle.recordFailure(attempt, now: at)
            throw LeanError.userNotFound
        }
        guard try await PasswordHash.verify(password, against: found.passwordHash) else {
            throttle.recordFailure(attempt, now: at)
            throw LeanError.passwordMismatch
        }
        throttle.recordSuccess(attempt)
        return try await answerWithSession(app: app, userId: found.userId, replacingOthers: false)
    }

    /// The signed-in user (`X-LC-Session`, or `session_token` as `User.become` sends it), with that token.
    func me(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        guard let userId = try await context.signedInUser(queries), let token = context.sessionToken,
            let user = try await queries.get(appId: app.appId, className: ClassName.user, objectId: userId)
        else { throw LeanError.userNotFound }
        var out = user.rendered(keys: try InstallationRoutes.keys(request)).objectValue ?? [:]
        out["sessionToken"] = .string(token)
        return JSONResponse.make(.object(out))
    }

    /// One user, to the master key or that user's own session.
    func get(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let objectId = try context.parameters.require("objectId")
        try await requireSelfOrMaster(objectId, context, else: Self.masterOnlyRead)
        guard let found = try await queries.get(appId: app.appId, className: ClassName.user, objectId: objectId) else {
            throw LeanError.notFound()
        }
        return JSONResponse.make(found.rendered(keys: try InstallationRoutes.keys(request)))
    }

    /// PUT by the user's own session or the master key; a new `password` answers a new `sessionToken`, and
    /// every earlier session of the user ends.
    func update(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let objectId = try context.parameters.require("objectId")
        if request.query("where") != nil {
            throw LeanError.invalidParameter("Conditional updates (where on PUT) are not supported.")
        }
        var body = try await request.jsonObject()
        let password = try Self.takePassword(&body)
        let writer = try await context.writer(queries)
        guard writer == .master || writer.userId == objectId else { throw LeanError.userNeedsSession }
        var session: (credentials: ObjectCommands.NewCredentials, token: String)?
        if let password { session = try await Self.newCredentials(password) }
        let updatedAt = try await objects.updateUser(
            appId: app.appId, objectId: objectId, body: body, credentials: session?.credentials, writer: writer,
            metadata: context.metadata(for: request))
        var out: [String: JSON] = ["updatedAt": .string(updatedAt)]
        if let session { out["sessionToken"] = .string(session.token) }
        return JSONResponse.make(.object(out))
    }

    func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let objectId = try context.parameters.require("objectId")
        try await requireSelfOrMaster(objectId, context, else: LeanError.userNeedsSession)
        try await objects.delete(
            appId: app.appId, className: ClassName.user, objectId: objectId, metadata: context.metadata(for: request))
        return JSONResponse.make([:])
    }

    /// `PUT` (what the SDKs send) or `POST /1.1/users/:objectId/refreshSessionToken`: a new session token for
    /// the user, every earlier one revoked.
    func refresh(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let objectId = try context.parameters.require("objectId")
        try await requireSelfOrMaster(objectId, context, else: LeanError.userNeedsSession)
        return try await answerWithSession(app: app, userId: objectId, replacingOthers: true)
    }

    /// Starts a session for `userId` and answers the user with its token.
    private func answerWithSession(app: App, userId: String, replacingOthers: Bool) async throws -> Response {
        guard let user = try await queries.get(appId: app.appId, className: ClassName.user, objectId: userId) else {
            throw LeanError.userNotFound
        }
        let token = SessionToken.make()
        try await objects.startSession(
            appId: app.appId, userId: userId, sessionHash: SessionToken.hash(token), replacingOthers: replacingOthers)
        var out = user.rendered().objectValue ?? [:]
        out["sessionToken"] = .string(token)
        return JSONResponse.make(.object(out))
    }

    private func requireSelfOrMaster(
        _ objectId: String, _ context: AppRequestContext, else refusal: LeanError
    )
        async throws
    {
        let writer = try await context.writer(queries)
        guard writer == .master || writer.userId == objectId else { throw refusal }
    }

    static let masterOnlyRead = LeanError.forbidden(
        "A user is readable only with the master key or that user's session.")

    /// Removes `password` from a body, so nothing after this reads it; nil when the body has none.
    static func takePassword(_ body: inout [String: JSON]) throws(LeanError) -> String? {
        guard let value = body.removeValue(forKey: "password") else { return nil }
        guard let password = value.stringValue, !password.isEmpty else { throw LeanError.passwordMissing }
        return password
    }

    static func newCredentials(
        _ password: String
    ) async throws -> (
        credentials: ObjectCommands.NewCredentials, token: String
    ) {
        let token = SessionToken.make()
        let hash = try await PasswordHash.make(password)
        return (ObjectCommands.NewCredentials(passwordHash: hash, sessionHash: SessionToken.hash(token)), token)
    }
}
