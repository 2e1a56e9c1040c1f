import HTTPTypes
import Hummingbird
import Ledger

extension AppRequestContext {
    /// The actor recorded with every event this request appends.
    public func metadata(for request: Request) -> EventMetadata {
        EventMetadata(
            keyKind: isMaster ? "master" : "client", address: remoteAddress,
            userAgent: request.headers[.userAgent], requestId: requestId)
    }
}
