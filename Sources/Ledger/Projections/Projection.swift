import Postgres

/// Turns events into rows of read-model tables. The same code serves the live tables (`schema: "public"`)
/// and a rebuild into a scratch schema, which is what lets `rebuild --verify` prove them equal.
public protocol Projection: Sendable {
    /// Unique name; also the checkpoint name of an asynchronous projector.
    var name: String { get }
    /// The tables this projection owns, in the public schema.
    var tables: [String] { get }
    func handles(_ eventType: String) -> Bool
    func apply(_ event: RecordedEvent, on conn: PGConnection, schema: String) async throws
}
