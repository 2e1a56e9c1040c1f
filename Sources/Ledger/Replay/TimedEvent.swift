import Foundation
import Postgres

/// An event with the instant it happened (`event_time`, migration 0003): the clock replay and explain use.
public struct TimedEvent: Sendable {
    public let event: RecordedEvent
    public let at: Date

    /// One stream's events in log order, each with its `event_time`, from the day partitions of its span only.
    static func stream(_ stream: String, appId: String, on conn: PGConnection) async throws -> [TimedEvent] {
        guard let span = try await StreamSpan.of(streams: [stream], appId: appId, on: conn) else { return [] }
        return try await conn.query(
            """
            SELECT position, transaction_id::text AS xid, app_id, stream, version, type, data, metadata, recorded_at,
                event_time(data, recorded_at) AS event_at
            FROM events WHERE app_id = \(appId) AND stream = \(stream) AND \(span.condition)
            ORDER BY transaction_id, position
            """
        ).map { TimedEvent(event: try EventStore.decode($0), at: try $0.date("event_at")) }
    }
}
