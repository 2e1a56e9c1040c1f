import Postgres

/// A projection that a rebuild can fill from the whole log with a few set-based statements inside
/// PostgreSQL, to the same effect as `apply` on each of its events in log order: the events never travel to
/// Swift. Nothing else writes its tables during the fold, so a rebuild loads them without any index.
/// `LogFoldTests` prove each fold equal to `apply`, event by event, on a seeded random history.
public protocol LogFoldingProjection: Projection {
    /// Every event type `handles` accepts (the fold reads those; a rebuild hands the rest to the others).
    var eventTypes: [String] { get }
    /// Fills this projection's tables in `schema`, empty on entry, from every event the transaction sees.
    /// `apps` are all the apps with events (`EventStore.appIds`): statements bound to them find rare event types
    /// by index.
    func fold(into schema: String, apps: [String], on conn: PGConnection) async throws
}
