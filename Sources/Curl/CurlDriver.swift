import CCurl
import CThreadName
import Foundation
import Logging
import Synchronization

/// The single owner of a `CURLM`: a dedicated thread runs `curl_multi_perform`/`curl_multi_poll`, so no Swift
/// task ever blocks in libcurl. Other threads only append to `shared` and call `curl_multi_wakeup`, which
/// libcurl allows from any thread.
final class CurlDriver: @unchecked Sendable {
    private struct Shared {
        var incoming: [CurlJob] = []
        var cancels: [CurlJob] = []
        /// The driver may be inside `curl_multi_poll`; the first submitter to see this wakes it (once).
        var sleeping = false
        var shuttingDown = false
        /// The multi handle is gone: no more wake-ups.
        var closed = false
        var terminated = false
        var terminationWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What libcurl 7.88 reports when the server resets a stream after a complete early response.
    private static let earlyResetCodes: Set<CURLcode> = [
        CURLE_HTTP2_STREAM, CURLE_HTTP2, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE,
    ]

    /// The drivers' name in /proc/<pid>/task/*/comm (at most 15 bytes there), by which
    /// scripts/bench-fanout tells their CPU time from the rest of the server's.
    static let threadName = "curl-driver"

    private let shared = Mutex(Shared())
    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlConfiguration
    private let logger: Logger
    let counters = CurlCounters()

    // Driver thread only.
    private var backlog: [CurlJob] = []
    private var backlogHead = 0
    private var idle: [CurlTransfer] = []
    /// Every transfer ever made; keeps handles alive while libcurl holds their pointers.
    private var transfers: [CurlTransfer] = []
    private var running = 0 {
        didSet { counters.inFlight.store(running, ordering: .relaxed) }
    }
    private var spareIncoming: [CurlJob] = []
    private var spareCancels: [CurlJob] = []
    private let watch = CurlCompletionWatch()
    private let cork = CurlSocketCork()
    private var spareWatchEntries: [CurlCompletionWatch.Entry] = []

    init(configuration: CurlConfiguration, logger: Logger) throws(CurlError) {
        let global = CurlGlobal.ensureInitialized()
        guard global == .ok else { throw .invalidRequest(code: global, message: "curl_global_init failed") }
        guard let multi = curl_multi_init() else {
            throw .invalidRequest(code: CurlCode(CURLE_OUT_OF_MEMORY), message: "curl_multi_init failed")
        }
        self.multi = multi
        self.configuration = configuration
        self.logger = logger
        _ = pl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = pl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxHostConnections))
        _ = pl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, configuration.maxTotalConnections))
        _ = pl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        _ = pl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.maxTotalConnections))
        backlog.reserveCapacity(1024)
        spareIncoming.reserveCapacity(1024)
    }

    func start() {
        let thread = Thread { [self] in
            // Named by the thread itself (prctl): on Linux, Foundation gives the system thread (what `top -H`,
            // `perf` and /proc show) neither a name set before `start()` nor, when the new thread runs before
            // `start()` has returned, one set through `Thread.current`.
            _ = pl_name_this_thread(Self.threadName)
            run()
        }
        thread.start()
    }

    // MARK: Any thread

    func submit(_ job: CurlJob, continuation: CheckedContinuation<Result<CurlResponse, CurlError>, Never>) {
        let refusal: CurlError? = shared.withLock { state in
            if state.shuttingDown { return .shutdown }
            if job.cancelRequested { return .cancelled }
            job.completion = .task(continuation)
            job.enqueued = true
            state.incoming.append(job)
            wakeIfSleeping(&state)
            return nil
        }
        counters.requests.add(1, ordering: .relaxed)
        if let refusal {
            counters.failures.add(1, ordering: .relaxed)
            continuation.resume(returning: .failure(refusal))
        }
    }

    /// Queues every request of `batch`, or refuses them all (shutdown, or the caller was cancelled before
    /// they were queued), so that one thread completes the whole batch.
    func submit(_ batch: CurlBatch) {
        let refusal: CurlError? = shared.withLock { state in
            if state.shuttingDown { return .shutdown }
            if batch.jobs.contains(where: \.cancelRequested) { return .cancelled }
            for job in batch.jobs { job.enqueued = true }
            state.incoming.append(contentsOf: batch.jobs)
            wakeIfSleeping(&state)
            return nil
        }
        counters.requests.add(batch.jobs.count, ordering: .relaxed)
        if let refusal {
            counters.failures.add(batch.jobs.count, ordering: .relaxed)
            for job in batch.jobs { job.complete(.failure(refusal)) }
        }
    }

    func cancel(_ job: CurlJob) {
        shared.withLock { state in
            job.cancelRequested = true
            guard job.enqueued, !state.closed else { return }
            state.cancels.append(job)
            wakeIfSleeping(&state)
        }
    }

    func beginShutdown() {
        shared.withLock { state in
            guard !state.shuttingDown else { return }
            state.shuttingDown = true
            if !state.closed { curl_multi_wakeup(multi) }
        }
    }

    func awaitTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { state in
                if state.terminated { return true }
                state.terminationWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Under the lock, so the multi handle cannot be cleaned up between the check and the call.
    private func wakeIfSleeping(_ state: inout Shared) {
        if state.sleeping, !state.closed {
            state.sleeping = false
            curl_multi_wakeup(multi)
        }
    }

    // MARK: Driver thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let shuttingDown = drain()
            admit()
            cork.coalescing { _ = curl_multi_perform(multi, &stillRunning) }
            counters.rounds.add(1, ordering: .relaxed)
            collectCompleted()
            completeStalledTransfers()
            admit()
            counters.queued.store(backlog.count - backlogHead, ordering: .relaxed)
            if shuttingDown, running == 0, backlogHead == backlog.count, nothingIncoming() { break }
            if readyToSleep() {
                // Wake in time to check the watch; libcurl shortens the wait further for its own timers.
                curl_multi_poll(multi, nil, 0, watch.entries.isEmpty ? 1000 : 100, nil)
            }
            if let pause = configuration.roundPause.pause(inFlight: running) {
                counters.pausedRounds.add(1, ordering: .relaxed)
                CurlRoundPause.sleep(pause)
            }
        }
        terminate()
    }

    private func nothingIncoming() -> Bool {
        shared.withLock { $0.incoming.isEmpty && $0.cancels.isEmpty }
    }

    private func readyToSleep() -> Bool {
        shared.withLock { state in
            guard state.incoming.isEmpty, state.cancels.isEmpty else { return false }
            state.sleeping = true
            return true
        }
    }

    /// Moves submitted jobs into the backlog and applies cancellations; returns whether shutdown began.
    private func drain() -> Bool {
        var incoming = spareIncoming
        var cancels = spareCancels
        let shuttingDown = shared.withLock { state in
            state.sleeping = false
            swap(&incoming, &state.incoming)
            swap(&cancels, &state.cancels)
            return state.shuttingDown
        }
        backlog.append(contentsOf: incoming)
        incoming.removeAll(keepingCapacity: true)
        spareIncoming = incoming
        for job in cancels where !job.finished {
            if let transfer = job.transfer {
                curl_multi_remove_handle(multi, transfer.easy)
                running -= 1
                release(transfer)
            }
            finish(job, .failure(.cancelled))
        }
        cancels.removeAll(keepingCapacity: true)
        spareCancels = cancels
        return shuttingDown
    }

    private func admit() {
        let limit = max(1, configuration.maxInFlight)
        let now = ContinuousClock.now
        while running < limit, backlogHead < backlog.count {
            let job = backlog[backlogHead]
            backlogHead += 1
            if !job.finished { start(job, now: now) }
        }
        if backlogHead == backlog.count {
            backlog.removeAll(keepingCapacity: true)
            backlogHead = 0
        } else if backlogHead > 4096, backlogHead * 2 > backlog.count {
            backlog.removeFirst(backlogHead)
            backlogHead = 0
        }
    }

    private func start(_ job: CurlJob, now: ContinuousClock.Instant) {
        guard let milliseconds = job.remainingMilliseconds(now: now) else {
            let message = "timed out waiting for a free HTTP/2 stream"
            finish(job, .failure(.transfer(code: .operationTimedOut, message: message, responseStarted: false)))
            return
        }
        let transfer: CurlTransfer
        do {
            if let reused = idle.popLast() {
                transfer = reused
            } else {
                transfer = try CurlTransfer(configuration: configuration, watch: watch, cork: cork)
                transfers.append(transfer)
            }
            try transfer.prepare(job.request, timeoutMilliseconds: milliseconds)
        } catch {
            finish(job, .failure(error))
            return
        }
        let added = curl_multi_add_handle(multi, transfer.easy)
        guard added == CURLM_OK else {
            release(transfer)
            let message = String(cString: curl_multi_strerror(added))
            finish(job, .failure(.invalidRequest(code: CurlCode(rawValue: -Int32(added.rawValue)), message: message)))
            return
        }
        transfer.job = job
        job.transfer = transfer
        running += 1
    }

    private func collectCompleted() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            _ = pl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            curl_multi_remove_handle(multi, easy)
            counters.connectionsOpened.add(transfer.connectionsOpened(), ordering: .relaxed)
            guard let job = transfer.job else {
                running -= 1
                release(transfer)
                continue
            }
            let succeeded = code == CURLE_OK || (Self.earlyResetCodes.contains(code) && transfer.hasCompleteResponse)
            if !succeeded, retry(job, on: transfer, code: CurlCode(code)) { continue }
            running -= 1
            let result: Result<CurlResponse, CurlError> =
                succeeded ? .success(transfer.makeResponse()) : .failure(transfer.makeError(code))
            release(transfer)
            finish(job, result)
        }
    }

    /// Finishes transfers whose whole response arrived `grace` ago without libcurl reporting them done.
    private func completeStalledTransfers() {
        guard !watch.entries.isEmpty else { return }
        let now = ContinuousClock.now
        var pending = spareWatchEntries
        swap(&pending, &watch.entries)
        for entry in pending {
            let transfer = entry.transfer
            // Finished normally (released, or already serving another request): nothing to do.
            guard transfer.generation == entry.generation, let job = transfer.job else { continue }
            guard now - entry.since >= watch.grace else {
                watch.entries.append(entry)
                continue
            }
            curl_multi_remove_handle(multi, transfer.easy)
            running -= 1
            counters.stalledCompletions.add(1, ordering: .relaxed)
            logger.debug("completed a stalled transfer", metadata: ["url": "\(job.request.url)"])
            let response = transfer.makeResponse()
            release(transfer)
            finish(job, .success(response))
        }
        pending.removeAll(keepingCapacity: true)
        spareWatchEntries = pending
    }

    /// Re-runs an unstarted request; libcurl has already marked the failed connection unusable, so the
    /// re-added handle lands on a healthy or a new connection.
    private func retry(_ job: CurlJob, on transfer: CurlTransfer, code: CurlCode) -> Bool {
        guard
            CurlConnectionRetry.shouldRetry(
                code: code, responseStarted: transfer.responseStarted, retriesSoFar: job.retries,
                limit: configuration.connectionRetries),
            let milliseconds = job.remainingMilliseconds(now: .now)
        else { return false }
        job.retries += 1
        counters.retries.add(1, ordering: .relaxed)
        logger.debug(
            "retrying on a new connection",
            metadata: ["curl.code": "\(code.rawValue)", "url": "\(job.request.url)"]
        )
        transfer.resetResponse()
        transfer.setTimeout(milliseconds: milliseconds)
        return curl_multi_add_handle(multi, transfer.easy) == CURLM_OK
    }

    private func release(_ transfer: CurlTransfer) {
        transfer.job?.transfer = nil
        transfer.recycle()
        idle.append(transfer)
    }

    private func finish(_ job: CurlJob, _ result: Result<CurlResponse, CurlError>) {
        job.finished = true
        job.transfer = nil
        switch result {
        case .success: counters.responses.add(1, ordering: .relaxed)
        case .failure: counters.failures.add(1, ordering: .relaxed)
        }
        job.complete(result)
    }

    private func terminate() {
        shared.withLock { $0.closed = true }
        idle.removeAll()
        transfers.removeAll()
        curl_multi_cleanup(multi)
        let waiters = shared.withLock { state in
            state.terminated = true
            let waiters = state.terminationWaiters
            state.terminationWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
