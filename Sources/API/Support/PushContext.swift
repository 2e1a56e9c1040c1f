import Hummingbird
import Ledger
import Logging
import NIOCore

/// Per-request context: the authenticated app and key kind, and the caller's address for the audit log.
public struct PushContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var app: App?
    public var isMaster = false
    public var requestId: String = ""
    public let remoteAddress: String?

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
