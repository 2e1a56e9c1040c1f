import Postgres

/// A per-event projection some of whose events a rebuild does not page through `applyAll`: a connection of its own,
/// sharing the rebuild's snapshot, summarises them set-based while the folds run (on the core the folds leave
/// idle), and the rebuild's transaction writes the summary after the page pass. That is only exact for events
/// whose effects commute with everything else the projection does in the page pass: rows no other event writes,
/// counters added to rows that exist by then. `LogFoldTests` prove the result equal to `apply`, event by event.
public protocol LogSummarizingProjection: Projection {
    /// The events summarised. The page pass skips them for every projection, so every per-event projection that
    /// handles their type must summarise the same events (`Rebuilder` checks).
    var summarizedEvents: SummarizedEvents { get }
    /// This projection's tables that only the summarised events write: in a rebuild the page pass never touches
    /// them, so, like the tables a fold fills, they are loaded without any index and their indexes made after.
    var summaryTables: [String] { get }
    /// Computes the summary of every summarised event `reader`'s transaction sees, into temporary tables of that
    /// transaction. `apps` are all the apps with events (`EventStore.appIds`).
    func summarize(apps: [String], on reader: PGConnection) async throws
    /// Writes the summary `summarize` left on `reader` into this projection's tables in `schema`, on `conn`,
    /// after the page pass.
    func writeSummary(from reader: PGConnection, into schema: String, on conn: PGConnection) async throws
}

/// Events of one type that a rebuild summarises: those whose `data` meets `condition`.
public struct SummarizedEvents: Sendable, Equatable {
    public let type: String
    /// SQL on a row of `events` (its `data`); NULL counts as false.
    public let condition: String

    /// The events of a row of `events` this picks, as SQL: true or false, never NULL (`type` never is). The type is
    /// compared outside the `coalesce`, where the planner can find the events by their type's index.
    public var sql: PGQuery { "(type = \(type) AND coalesce((\(unsafeRaw: condition)), false))" }
}
