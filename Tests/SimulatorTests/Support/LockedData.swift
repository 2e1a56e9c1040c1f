import Foundation
import Synchronization

/// Bytes handed from a reader thread to the test thread.
final class LockedData: Sendable {
    private let storage = Mutex<Data?>(nil)

    func set(_ data: Data) {
        self.storage.withLock { $0 = data }
    }

    var isSet: Bool { self.storage.withLock { $0 != nil } }
    var value: Data { self.storage.withLock { $0 ?? Data() } }
}
