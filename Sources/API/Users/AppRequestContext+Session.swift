import HTTPEdge
import Ledger
import PushCore

extension AppRequestContext {
    /// The user whose session the request carries, or nil without one or when it is not a live session.
    func signedInUser(_ objects: ObjectQueries) async throws -> String? {
        guard let sessionToken, !sessionToken.isEmpty, let app else { return nil }
        return try await objects.sessionUser(appId: app.appId, sessionHash: SessionToken.hash(sessionToken))
    }

    /// Who this request writes as: the master key wins; otherwise a live session's user, or no one.
    func writer(_ objects: ObjectQueries) async throws -> Writer {
        if isMaster { return .master }
        return try await signedInUser(objects).map { .user(objectId: $0) } ?? .client
    }
}
