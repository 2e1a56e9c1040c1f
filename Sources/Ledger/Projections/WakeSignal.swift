import Foundation
import PushCore

/// Wakes a sleeping worker early (on NOTIFY), without ever letting it sleep longer than its timeout.
/// A signal that arrives while nobody waits is remembered once, so a wake-up is never lost.
public final class WakeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextId = 0
    private let clock: ServiceClock

    public init(clock: ServiceClock = .system) { self.clock = clock }

    public func signal() {
        lock.lock()
        let woken = waiters
        waiters.removeAll()
        if woken.isEmpty { pending = true }
        lock.unlock()
        for (_, cont) in woken { cont.resume() }
    }

    private func timeOut(_ id: Int) {
        lock.lock()
        let waiter = waiters.removeValue(forKey: id)
        lock.unlock()
        waiter?.resume()
    }

    /// Returns on the next signal (or a pending one) or after `timeout`, whichever comes first.
    public func wait(timeout: Duration) async {
        let id: Int = lock.withLock {
            nextId += 1
            return nextId
        }
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            lock.lock()
            if pending {
                pending = false
                lock.unlock()
                cont.resume()
                return
            }
            waiters[id] = cont
            lock.unlock()
            Task { [clock] in
                try? await clock.sleep(for: timeout)
                self.timeOut(id)
            }
        }
    }
}
