import Foundation
import Ledger
import PushCore

extension NewEvent {
    /// An event for the tests of the log itself (order, versions, partitions, notification), which any stream
    /// may carry: the end of a session no device ever had, so no projection changes a row for it.
    static func noise(_ note: String? = nil) -> NewEvent {
        NewEvent(.disconnected(noiseChange(at: LeanDate.format(Date()), note: note)))
    }

    /// Its data, for a test that inserts rows of the log itself.
    static let noiseData = noiseChange(at: "2026-01-01T00:00:00.000Z", note: nil).json.encoded()

    private static func noiseChange(at: String, note: String?) -> PresenceChanged {
        PresenceChanged(objectId: "noise", installationId: "", session: "noise", at: at, reason: note)
    }
}
