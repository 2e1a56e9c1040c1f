import Ledger
import Logging
import PushCore
import ServiceLifecycle

/// Keeps the indexes of GeoPoint and Pointer fields in step with `class_fields` inside `serve` (issue 16): soon
/// after start, then every `interval`, so a field that became a GeoPoint is indexed within a minute without
/// the write that fixed its type waiting for the build.
struct FieldIndexService: Service {
    let indexes: FieldIndexes
    let interval: Duration
    let clock: ServiceClock
    let logger: Logger

    func run() async throws {
        await Periodically.run(after: .seconds(2), every: interval, on: clock) {
            do {
                let built = try await indexes.ensure()
                if !built.isEmpty { logger.info("field indexes built: \(built.joined(separator: ", "))") }
            } catch {
                logger.error("field indexes: \(error)")
            }
        }
    }
}
