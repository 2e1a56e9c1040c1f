import Dispatch

/// Runs Swift tasks on a connection's serial queue. The pool prefers it while a connection is lent, so the
/// borrower's code and its libpq calls share one thread: a statement then costs no thread hop at all (the
/// blocking call runs inline), where hopping to the queue and back cost two context switches per statement
/// and was most of the server's CPU on the write path.
final class PGConnectionExecutor: TaskExecutor, @unchecked Sendable {
    let queue: DispatchQueue
    let id: Int
    static let key = DispatchSpecificKey<Int>()

    init(queue: DispatchQueue, id: Int) {
        self.queue = queue
        self.id = id
        queue.setSpecific(key: Self.key, value: id)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Whether the caller is already running on this connection's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == id }
}
