import Foundation

/// COPY data on its way from the connection that reads it to the one that writes it, each on its own queue: the
/// reader's bytes are gathered into chunks, the reader waits while `limit` bytes wait for the writer, and the
/// writer waits while none do. Bounded, so a slow writer holds the reader back instead of filling memory.
final class PGCopyPipe: @unchecked Sendable {
    private let condition = NSCondition()
    /// At most `limit / chunkSize` of them, so taking from the front costs nothing worth an index.
    private var chunks: [[UInt8]] = []
    private var gathering: [UInt8] = []
    private var waiting = 0
    private var ended = false
    private var abandoned = false
    /// Set when the reader ended with an error: the writer must abort its COPY, not end it.
    private(set) var readerFailed = false
    private let chunkSize: Int
    private let limit: Int

    init(chunkSize: Int = 64 * 1024, limit: Int = 1 << 20) {
        self.chunkSize = chunkSize
        self.limit = limit
        gathering.reserveCapacity(chunkSize)
    }

    /// Reader side: adds bytes; hands a chunk over when it is full (waiting while the writer is behind).
    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        gathering.append(contentsOf: bytes)
        if gathering.count >= chunkSize { handOver() }
    }

    /// Reader side, at its end: hands over what is gathered; `failed` makes the writer abort.
    func finish(failed: Bool) {
        handOver()
        condition.lock()
        ended = true
        readerFailed = failed
        condition.broadcast()
        condition.unlock()
    }

    /// Writer side: the next chunk, waiting for one; nil once the reader has finished and all were taken.
    func take() -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && !ended { condition.wait() }
        guard !chunks.isEmpty else { return nil }
        let chunk = chunks.removeFirst()
        waiting -= chunk.count
        condition.broadcast()
        return chunk
    }

    /// Writer side, when it stops early (an error): the reader's further bytes are dropped, so it never waits.
    func abandon() {
        condition.lock()
        abandoned = true
        chunks.removeAll()
        waiting = 0
        condition.broadcast()
        condition.unlock()
    }

    private func handOver() {
        guard !gathering.isEmpty else { return }
        let chunk = gathering
        gathering.removeAll(keepingCapacity: true)
        condition.lock()
        defer { condition.unlock() }
        while waiting >= limit && !abandoned { condition.wait() }
        guard !abandoned else { return }
        chunks.append(chunk)
        waiting += chunk.count
        condition.broadcast()
    }
}
