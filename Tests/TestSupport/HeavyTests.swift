/// Tests that load both cores on their own (thousands of pushes through the simulator, a headless browser)
/// take turns: swift-testing runs suites of every target in parallel in one process, and two of them at
/// once starved the libcurl driver until requests timed out and were re-sent — the re-send bounds those
/// tests check are about crashes and GOAWAYs, not about an overloaded test machine.
public actor HeavyTests {
    public static let shared = HeavyTests()
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other heavy test is running.
    public static func exclusive<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await shared.acquire()
        do {
            let value = try await body()
            await shared.release()
            return value
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}
