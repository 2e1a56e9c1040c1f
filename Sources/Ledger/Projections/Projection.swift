import Postgres
import PushCore

/// Turns events into rows of read-model tables. The same code serves the live tables (`schema: "public"`)
/// and a rebuild into a scratch schema, which is what lets `rebuild --verify` prove them equal.
public protocol Projection: Sendable {
    /// Unique name; also the checkpoint name of an asynchronous projector.
    var name: String { get }
    /// The tables this projection owns, in the public schema.
    var tables: [String] { get }
    func handles(_ eventType: String) -> Bool
    func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws
    /// Applies `events` (all of types this projection handles) in order, to the same effect as applying
    /// them one by one; a projection may write runs of them with fewer statements (group commit).
    func applyAll(_ events: [ProjectedEvent], on conn: PGConnection, schema: String) async throws
}

extension Projection {
    public func applyAll(_ events: [ProjectedEvent], on conn: PGConnection, schema: String) async throws {
        for event in events { try await apply(event, on: conn, schema: schema) }
    }
}

/// What a projection may read of an event: where it stands in its stream and what it says (decoded once, its
/// targets counted: no projection reads more than their number), never its place in the global log. Inline
/// projections are applied while the append is still queued on the connection, before the row (and its
/// position) exists, so a projection that needed the position could not run inline.
public struct ProjectedEvent: Sendable {
    public let appId: String
    public let stream: String
    public let version: Int
    public let event: LedgerEvent
    public var type: String { event.type }

    public init(appId: String, stream: String, version: Int, event: LedgerEvent) {
        self.appId = appId
        self.stream = stream
        self.version = version
        self.event = event
    }

    /// An event read from the log (or made by a test) as its type and stored data.
    public init(appId: String, stream: String, version: Int, type: String, data: JSON) throws {
        self.init(
            appId: appId, stream: stream, version: version,
            event: try LedgerEvent(type: type, data: data, targets: .counted))
    }
}

extension RecordedEvent {
    public var projected: ProjectedEvent {
        get throws { try ProjectedEvent(appId: appId, stream: stream, version: version, type: type, data: data) }
    }
}

extension Projection {
    /// `applyAll` by runs: consecutive events of one app that `kind` puts together (nil: on their own) are
    /// written with the one statement `statement` makes for a run of several of that kind, when it makes one;
    /// everything else goes through `apply`, in order.
    func applyRuns<Kind: Equatable>(
        _ events: [ProjectedEvent], on conn: PGConnection, schema: String, kind: (ProjectedEvent) -> Kind?,
        statement: (Kind, [ProjectedEvent]) async throws -> PGQuery?
    ) async throws {
        for run in ProjectionRun.split(events, kind) {
            if let k = run.kind, run.events.count > 1, let query = try await statement(k, run.events) {
                try await conn.enqueue(query)
            } else {
                for event in run.events { try await apply(event, on: conn, schema: schema) }
            }
        }
    }
}

/// A stretch of consecutive events of one app that a projection writes with one set-based statement.
struct ProjectionRun<Kind: Equatable> {
    /// nil: events the projection applies one by one.
    let kind: Kind?
    let events: [ProjectedEvent]

    /// Cuts `events` into runs, in order: consecutive events of the same app and the same `kind`.
    static func split(_ events: [ProjectedEvent], _ kind: (ProjectedEvent) -> Kind?) -> [ProjectionRun] {
        var runs: [ProjectionRun] = []
        var current: [ProjectedEvent] = []
        var currentKind: Kind?
        for event in events {
            let k = kind(event)
            if let first = current.first, k == nil || k != currentKind || event.appId != first.appId {
                runs.append(ProjectionRun(kind: currentKind, events: current))
                current.removeAll()
            }
            currentKind = k
            current.append(event)
        }
        if !current.isEmpty { runs.append(ProjectionRun(kind: currentKind, events: current)) }
        return runs
    }
}
