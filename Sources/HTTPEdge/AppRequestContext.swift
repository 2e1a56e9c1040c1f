import Hummingbird
import Ledger
import Logging
import NIOCore
import Synchronization

/// Per-request context: the authenticated app and key kind, and the caller's address for the audit log.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated app; the request's log line names it, whichever copy of the context learnt it.
    public var app: App? {
        didSet { facts.appId = app?.appId }
    }
    public var isMaster = false
    /// The session token the request carries (`X-LC-Session`, or `session_token` as `User.become` sends it),
    /// unchecked: routes that act for a user resolve it (`writer(_:)`), the rest ignore it as LeanCloud does.
    public var sessionToken: String?
    /// Set by `RequestLogMiddleware` for every request; recorded in the metadata of the events it appends.
    public var requestId: String = ""
    public let remoteAddress: String?
    /// Shared by every copy of this request's context, so the outer log middleware sees what inner ones
    /// learnt (the authenticated app).
    let facts = RequestFacts()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The authenticated app; routes behind `AuthMiddleware` can rely on it.
    public func requireApp() throws -> App {
        guard let app else { throw LeanErrorResponse(.unauthorized) }
        return app
    }

    public func requireMaster() throws -> App {
        let app = try requireApp()
        guard isMaster else { throw LeanErrorResponse(.forbidden("The master key is required for this operation.")) }
        return app
    }
}

/// What the request log line reports that is known only deep in the middleware chain.
final class RequestFacts: Sendable {
    private let authenticatedApp = Mutex<String?>(nil)

    var appId: String? {
        get { authenticatedApp.withLock { $0 } }
        set { authenticatedApp.withLock { $0 = newValue } }
    }
}
