/// Who a write to an installation or a `_User` speaks for (SPEC §12.5): the master key (or a server-side
/// caller, such as an import), a signed-in user by their session, or an app-key client that is no one in
/// particular. Rules about users' data ask this, not the key kind.
public enum Writer: Sendable, Hashable {
    case master
    case user(objectId: String)
    case client

    /// The signed-in user's objectId, if the writer is one.
    public var userId: String? {
        if case .user(let objectId) = self { return objectId }
        return nil
    }
}
