import CLibPQ
import Dispatch
import Foundation
import Logging

/// One libpq connection. Every libpq call runs on the connection's own serial dispatch queue, so blocking
/// network waits never occupy Swift's cooperative thread pool. A connection is used by one borrower at a
/// time (the pool lends it inside a closure), which is why the handle is safe behind `@unchecked Sendable`.
public final class PGConnection: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Runs the borrower's tasks on `queue` (see `PGConnectionExecutor`).
    let executor: PGConnectionExecutor
    private var handle: OpaquePointer?
    public let id: Int
    /// Set when the connection failed at the socket level; the pool then discards it.
    public private(set) var isBroken = false
    /// Statement text → server-side prepared statement. Touched only on `queue`. Parameterised statements
    /// are prepared once per connection, so the server parses them once.
    private var prepared: [String: Prepared] = [:]
    private struct Prepared {
        let name: String
        let at: ContinuousClock.Instant
    }
    /// The session's `plan_cache_mode` as far as this connection knows: nil after anything that may have
    /// undone a `SET` (an error, a rollback), so the next statement sets it again. Touched only on `queue`.
    private var planMode: PlanMode? = .custom
    /// How long a statement marked `reusingPlan()` keeps its prepared statement, and so its generic plan,
    /// before it is prepared afresh: a plan made while a table was empty (a sequential scan) otherwise
    /// stays until an ANALYZE happens to invalidate it — saves fell from 1,500/s to 300/s within a minute.
    let genericPlanLifetime: Duration
    /// Names are never reused: a statement whose PREPARE failed in a pipeline is forgotten, and a count-based
    /// name could then collide with a later statement's.
    private var preparedSerial = 0
    private static let maxPrepared = 512
    /// Statements queued by `enqueue`, sent with the next round trip. Touched only on `queue`.
    private var pending: [PGQuery] = []
    private static let maxPending = 256
    /// A pipeline `sendQueued` sent whose results are still to be read: read (and its error thrown) before the
    /// connection is next used. Touched only on `queue`.
    private var inFlight: [PipelineStep]?

    private static let counter = LockedCounter()

    /// UTC and ISO dates for decoding; and a plan for each execution unless a statement asks otherwise
    /// (`PGQuery.reusingPlan()`), so a statement's plan follows its values.
    static let sessionSetup =
        "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET client_encoding = 'UTF8'; "
        + "SET plan_cache_mode = force_custom_plan"

    private init(handle: OpaquePointer, queue: DispatchQueue, id: Int, genericPlanLifetime: Duration) {
        self.genericPlanLifetime = genericPlanLifetime
        self.handle = handle
        self.queue = queue
        self.executor = PGConnectionExecutor(queue: queue, id: id)
        self.id = id
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Opens a connection from a libpq URI (`postgresql://user@host:port/db`), in UTC and ISO date style.
    public static func connect(url: String, genericPlanLifetime: Duration = .seconds(10)) async throws -> PGConnection {
        let id = counter.next()
        let queue = DispatchQueue(label: "pushledger.pg.\(id)")
        let handle: OpaquePointer = try await withCheckedThrowingContinuation { cont in
            queue.async {
                guard let conn = PQconnectdb(url) else {
                    cont.resume(throwing: PGError(kind: .connection, message: "out of memory"))
                    return
                }
                if PQstatus(conn) != CONNECTION_OK {
                    let message = String(cString: PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)
                    PQfinish(conn)
                    cont.resume(throwing: PGError(kind: .connection, message: message))
                    return
                }
                // Server notices (e.g. "relation already exists, skipping") are not errors; keep stderr clean.
                PQsetNoticeProcessor(conn, { _, _ in }, nil)
                let setup = PQexec(conn, Self.sessionSetup)
                PQclear(setup)
                cont.resume(returning: conn)
            }
        }
        return PGConnection(handle: handle, queue: queue, id: id, genericPlanLifetime: genericPlanLifetime)
    }

    /// Runs one statement with bound parameters (extended protocol, text format). Statements queued with
    /// `enqueue` go first, in the same round trip.
    @discardableResult
    public func query(_ query: PGQuery) async throws -> PGRows {
        try await onQueue { conn in
            // Anything to do before the statement itself (queued statements, a SET, a PREPARE) goes in
            // one pipelined round trip with it.
            let name = self.preparedName(for: query)
            let unprepared = name != nil && self.prepared[query.sql] == nil
            if !self.pending.isEmpty || unprepared || self.needsModeChange(query) || self.isStale(query) {
                return try self.runPipeline(final: query, conn: conn)
            }
            return try self.consume(self.send(query, name: name, conn: conn, pipelined: false), conn: conn)
        }
    }

    /// Queues a statement whose result nobody needs. Queued statements are sent together with the next
    /// `query` or `flush`, pipelined in one round trip; an error among them is thrown there. Outside a
    /// transaction, one pipeline runs as one implicit transaction (all or nothing).
    public func enqueue(_ query: PGQuery) async throws {
        try await onQueue { conn in
            self.pending.append(query)
            if self.pending.count >= Self.maxPending { _ = try self.runPipeline(final: nil, conn: conn) }
        }
    }

    /// Runs `body` on this connection's executor, as the pool runs a borrower's closure, so its statements need
    /// no thread hop: for code that holds two connections (inside the other's closure) and talks mostly to this one.
    public func withOwnExecutor<T>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(executor) { () async throws -> T in try await body() }
    }

    /// Sends the queued statements and returns without waiting for the server to run them: the next use of the
    /// connection reads their results first, and throws their error if there is one. While the server works
    /// through them, the caller can prepare the next ones (a rebuild builds a page's statements while the
    /// server runs the previous page's). Only for statements whose results nobody needs, like `enqueue`.
    public func sendQueued() async throws {
        try await onQueue { conn in
            if !self.pending.isEmpty { self.inFlight = try self.sendPipeline(final: nil, conn: conn) }
        }
    }

    /// Sends the queued statements now.
    public func flush() async throws {
        try await onQueue { conn in try self.sendPending(conn) }
    }

    /// Forgets queued statements (the transaction they belonged to is being rolled back, and with it any
    /// `SET` it made).
    func discardPending() async {
        // First settle what was sent ahead (its error belongs to the transaction being rolled back), so that
        // the forgetting below runs even when that failed.
        _ = try? await onQueue { _ in }
        _ = try? await onQueue { _ in
            self.pending.removeAll()
            self.planMode = nil
        }
    }

    /// Runs several statements in one round trip (simple protocol, no parameters): migrations and DDL only.
    public func execute(unsafeScript script: String) async throws {
        try await onQueue { conn in
            try self.sendPending(conn)
            let result = PQexec(conn, script)
            _ = try self.consume(result, conn: conn)
            // PQexec returns only the last result; drain any others so the connection stays usable.
            while let extra = PQgetResult(conn) { PQclear(extra) }
        }
    }

    /// Bulk-loads rows with `COPY ... FROM STDIN` (text format). Each element of `lines` is one row, tab
    /// separated, already escaped with `PGCopy.escape`.
    public func copyIn(_ copyStatement: PGQuery, lines: [String]) async throws {
        try await onQueue { conn in
            try self.copyIn(copyStatement, on: conn) { put in
                var buffer = ""
                buffer.reserveCapacity(64 * 1024)
                func flush() throws {
                    guard !buffer.isEmpty else { return }
                    try buffer.withUTF8 { try put(UnsafeRawBufferPointer($0)) }
                    buffer.removeAll(keepingCapacity: true)
                }
                for line in lines {
                    buffer += line
                    buffer += "\n"
                    if buffer.utf8.count > 60 * 1024 { try flush() }
                }
                try flush()
                return nil
            }
        }
    }

    /// Streams `COPY ... TO STDOUT` output, calling `onLine` for every chunk libpq hands back.
    public func copyOut(
        _ copyStatement: PGQuery, onData: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void
    )
        async throws -> Int
    {
        try await onQueue { conn in
            try self.sendPending(conn)
            let start = PQexec(conn, copyStatement.sql)
            guard PQresultStatus(start) == PGRES_COPY_OUT else {
                _ = try self.consume(start, conn: conn)
                throw PGError(kind: .protocolViolation, message: "COPY did not enter COPY OUT state")
            }
            PQclear(start)
            var total = 0
            while true {
                var buffer: UnsafeMutablePointer<CChar>? = nil
                let n = PQgetCopyData(conn, &buffer, 0)
                if n > 0, let buffer {
                    total += Int(n)
                    buffer.withMemoryRebound(to: UInt8.self, capacity: Int(n)) {
                        onData(UnsafeBufferPointer(start: $0, count: Int(n)))
                    }
                    PQfreemem(buffer)
                } else if n == -1 {
                    break
                } else {
                    throw self.connectionError(conn)
                }
            }
            while let result = PQgetResult(conn) { _ = try self.consume(result, conn: conn) }
            return total
        }
    }

    /// Copies rows from `reader` into this connection: `source` (`COPY … TO STDOUT` on `reader`) streams into
    /// `target` (`COPY … FROM STDIN` here) as libpq hands the data over, never decoded on the way, through a
    /// bounded `PGCopyPipe`. For two connections that share a snapshot, the writing one in a transaction: the
    /// reader's server makes the rows on one core while the writer's stores them on another. The formats of the
    /// two statements must agree. A failure on either side fails the call (and the writer's statement).
    public func copyIn(_ target: PGQuery, from reader: PGConnection, _ source: PGQuery) async throws {
        let pipe = PGCopyPipe()
        // The reader's task must not wait for this connection's queue, which the writer below blocks while it
        // waits for data: it runs on the global executor and hops to the reader's own queue.
        let reading = Task(executorPreference: globalConcurrentExecutor) {
            do {
                _ = try await reader.copyOut(source) { pipe.write($0) }
                pipe.finish(failed: false)
            } catch {
                pipe.finish(failed: true)
                throw error
            }
        }
        do {
            try await onQueue { conn in
                defer { pipe.abandon() }
                try self.copyIn(target, on: conn) { put in
                    while let chunk = pipe.take() { try chunk.withUnsafeBytes { try put($0) } }
                    return pipe.readerFailed ? "the rows to copy could not be read" : nil
                }
            }
        } catch {
            // The reader's error, when it failed, is the cause of the writer's.
            try await reading.value
            throw error
        }
        try await reading.value
    }

    /// Runs `statement` (`COPY … FROM STDIN`) on `conn`: `feed` sends the data through `put` and returns nil to end
    /// the copy, or a message to abort it with. Only ever called on `queue`.
    private func copyIn(
        _ statement: PGQuery, on conn: OpaquePointer,
        feed: (_ put: (UnsafeRawBufferPointer) throws -> Void) throws -> String?
    ) throws {
        try sendPending(conn)
        let start = PQexec(conn, statement.sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try consume(start, conn: conn)
            throw PGError(kind: .protocolViolation, message: "COPY did not enter COPY IN state")
        }
        PQclear(start)
        let abort = try feed { bytes in
            let ok = bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(conn, $0.baseAddress, Int32($0.count)) }
            if ok != 1 { throw connectionError(conn) }
        }
        guard PQputCopyEnd(conn, abort) == 1 else { throw connectionError(conn) }
        var failure: Error?
        while let result = PQgetResult(conn) {
            do { _ = try consume(result, conn: conn) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// Closes the connection; later calls fail.
    public func close() async {
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            queue.async {
                if let handle = self.handle { PQfinish(handle) }
                self.handle = nil
                self.isBroken = true
                cont.resume()
            }
        }
    }

    /// True when the server considers us inside a transaction block (used by the pool to refuse reuse).
    var transactionStatusIsIdle: Bool {
        get async {
            await withCheckedContinuation { cont in
                queue.async {
                    guard let handle = self.handle else { return cont.resume(returning: false) }
                    cont.resume(returning: PQtransactionStatus(handle) == PQTRANS_IDLE)
                }
            }
        }
    }

    // MARK: - Plumbing

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) throws -> T) async throws -> T {
        let cancel = CancelToken()
        return try await withTaskCancellationHandler {
            // Already on the queue (the borrower runs on the connection's executor): call libpq inline.
            if executor.isCurrent { return try run(body, cancel: cancel) }
            return try await withCheckedThrowingContinuation { cont in
                queue.async { cont.resume(with: Result { try self.run(body, cancel: cancel) }) }
            }
        } onCancel: {
            cancel.fire()
        }
    }

    /// Runs `body` on the queue with the cancel token armed, after reading the results of statements sent ahead
    /// (`sendQueued`), so every use of the connection finds it settled and sees their error first. Only ever
    /// called on `queue`.
    private func run<T>(_ body: (OpaquePointer) throws -> T, cancel: CancelToken) throws -> T {
        guard let conn = handle, !isBroken || PQstatus(conn) == CONNECTION_OK else {
            throw PGError(kind: .connection, message: "connection is closed")
        }
        cancel.arm(PQgetCancel(conn))
        defer { cancel.disarm() }
        try collectInFlight(conn)
        return try body(conn)
    }

    /// Sends queued statements before a call that bypasses `query` (scripts, COPY), so order is kept: a queued
    /// BEGIN must reach the server before a script meant to run inside the transaction.
    private func sendPending(_ conn: OpaquePointer) throws {
        if !pending.isEmpty { _ = try runPipeline(final: nil, conn: conn) }
    }

    /// The prepared-statement name for a parameterised statement (nil: run it unprepared).
    private func preparedName(for query: PGQuery) -> String? {
        guard !query.binds.isEmpty else { return nil }
        if let entry = prepared[query.sql] { return entry.name }
        return prepared.count < Self.maxPrepared ? "pl_\(preparedSerial)" : nil
    }

    /// Records that `name` is now prepared for `sql` on the server.
    private func register(_ name: String, for sql: String) {
        prepared[sql] = Prepared(name: name, at: .now)
        preparedSerial += 1
    }

    /// Whether the session's `plan_cache_mode` must be set before `query` runs.
    private func needsModeChange(_ query: PGQuery) -> Bool {
        guard let wanted = query.planMode else { return false }
        return planMode != wanted
    }

    /// Whether `query` reuses a generic plan that has outlived `genericPlanLifetime`.
    private func isStale(_ query: PGQuery) -> Bool {
        guard query.reusesPlan, let entry = prepared[query.sql] else { return false }
        return entry.at.duration(to: .now) > genericPlanLifetime
    }

    /// Executes (blocking) or sends (pipelined) one statement.
    private func send(_ query: PGQuery, name: String?, conn: OpaquePointer, pipelined: Bool) -> OpaquePointer? {
        Self.withCStrings(query.binds) { values -> OpaquePointer? in
            let n = Int32(values.count)
            if pipelined {
                let ok =
                    name.map { PQsendQueryPrepared(conn, $0, n, values, nil, nil, 0) }
                    ?? PQsendQueryParams(conn, query.sql, n, nil, values, nil, nil, 0)
                return ok == 1 ? conn : nil
            }
            if let name { return PQexecPrepared(conn, name, n, values, nil, nil, 0) }
            return PQexecParams(conn, query.sql, n, nil, values, nil, nil, 0)
        }
    }

    /// Sends the queued statements (and `final`) in pipeline mode, one sync, one round trip; returns the
    /// rows of `final`. The first error is thrown after every result is read, leaving the connection clean.
    private func runPipeline(final: PGQuery?, conn: OpaquePointer) throws -> PGRows {
        try collectPipeline(try sendPipeline(final: final, conn: conn), conn: conn)
    }

    /// What a sent pipeline's results answer, in order; `sendFailed`: sending stopped early (the error is the
    /// connection's, thrown when the results are read).
    private enum PipelineStep { case prepare(String), execute(last: Bool), sendFailed }

    /// Reads the results of the pipeline `sendQueued` left in flight, if any.
    private func collectInFlight(_ conn: OpaquePointer) throws {
        guard let steps = inFlight else { return }
        inFlight = nil
        _ = try collectPipeline(steps, conn: conn)
    }

    /// Sends the queued statements (and `final`) in pipeline mode, ending with a sync point.
    private func sendPipeline(final: PGQuery?, conn: OpaquePointer) throws -> [PipelineStep] {
        var queries = pending
        pending.removeAll()
        if let final { queries.append(final) }
        guard PQenterPipelineMode(conn) == 1 else { throw connectionError(conn) }
        var steps: [PipelineStep] = []
        var sendFailed = false
        /// A statement of our own whose result only matters if it fails.
        func sendUtility(_ sql: String) -> Bool {
            guard PQsendQueryParams(conn, sql, 0, nil, nil, nil, nil, 0) == 1 else { return false }
            steps.append(.execute(last: false))
            return true
        }
        for (i, query) in queries.enumerated() {
            if needsModeChange(query), let mode = query.planMode {
                guard sendUtility("SET plan_cache_mode = \(mode.rawValue)") else {
                    sendFailed = true
                    break
                }
                planMode = mode
            }
            if isStale(query), let old = prepared.removeValue(forKey: query.sql) {
                guard sendUtility("DEALLOCATE \(old.name)") else {
                    sendFailed = true
                    break
                }
            }
            let name = preparedName(for: query)
            if let name, prepared[query.sql] == nil {
                guard PQsendPrepare(conn, name, query.sql, Int32(query.binds.count), nil) == 1 else {
                    sendFailed = true
                    break
                }
                register(name, for: query.sql)
                steps.append(.prepare(query.sql))
            }
            guard send(query, name: name, conn: conn, pipelined: true) != nil else {
                sendFailed = true
                break
            }
            steps.append(.execute(last: final != nil && i == queries.count - 1))
        }
        _ = PQpipelineSync(conn)
        if sendFailed { steps.append(.sendFailed) }
        return steps
    }

    /// Reads a sent pipeline's results up to its sync point and leaves pipeline mode; throws its first error.
    private func collectPipeline(_ steps: [PipelineStep], conn: OpaquePointer) throws -> PGRows {
        var failure: Error?
        if case .sendFailed? = steps.last { failure = connectionError(conn) }
        var rows = PGRows(columns: [], values: [], affectedRows: 0)
        for step in steps {
            if case .sendFailed = step { break }
            while let result = PQgetResult(conn) {
                let status = PQresultStatus(result)
                let ok = status != PGRES_FATAL_ERROR && status != PGRES_PIPELINE_ABORTED
                if !ok, case .prepare(let sql) = step { prepared[sql] = nil }
                if status == PGRES_PIPELINE_ABORTED {
                    PQclear(result)
                    continue
                }
                do {
                    let consumed = try consume(result, conn: conn)
                    if case .execute(last: true) = step { rows = consumed }
                } catch {
                    failure = failure ?? error
                }
            }
        }
        // The sync point, then the connection is idle again.
        while let result = PQgetResult(conn) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        PQexitPipelineMode(conn)
        if let failure {
            planMode = nil  // the SET may not have run, or the transaction it ran in is now aborted
            throw failure
        }
        return rows
    }

    private func consume(_ result: OpaquePointer?, conn: OpaquePointer) throws -> PGRows {
        guard let result else { throw connectionError(conn) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT:
            let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
            return PGRows(columns: [], values: [], affectedRows: affected)
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            let rowCount = Int(PQntuples(result))
            let columnCount = Int(PQnfields(result))
            var columns: [String] = []
            columns.reserveCapacity(columnCount)
            for c in 0..<columnCount { columns.append(String(cString: PQfname(result, Int32(c)))) }
            var values: [String?] = []
            values.reserveCapacity(rowCount * columnCount)
            for r in 0..<rowCount {
                for c in 0..<columnCount {
                    if PQgetisnull(result, Int32(r), Int32(c)) == 1 {
                        values.append(nil)
                    } else {
                        values.append(String(cString: PQgetvalue(result, Int32(r), Int32(c))))
                    }
                }
            }
            return PGRows(columns: columns, values: values, affectedRows: rowCount)
        default:
            func field(_ code: UInt8) -> String? {
                guard let p = PQresultErrorField(result, Int32(code)) else { return nil }
                return String(cString: p)
            }
            let state = field(UInt8(ascii: "C"))
            let message = field(UInt8(ascii: "M")) ?? String(cString: PQresultErrorMessage(result))
            if PQstatus(conn) != CONNECTION_OK { isBroken = true }
            let kind: PGError.Kind = state == "57014" ? .cancelled : (isBroken ? .connection : .server)
            throw PGError(
                kind: kind, message: message, sqlState: state, detail: field(UInt8(ascii: "D")),
                constraint: field(UInt8(ascii: "n")))
        }
    }

    private func connectionError(_ conn: OpaquePointer) -> PGError {
        if PQstatus(conn) != CONNECTION_OK { isBroken = true }
        let message = String(cString: PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)
        return PGError(kind: .connection, message: message.isEmpty ? "connection failure" : message)
    }

    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0)! } }
        defer { for p in pointers { free(p) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            body(buffer.map { $0.map { UnsafePointer($0) } })
        }
    }
}

/// Holds the libpq cancel object while a statement runs, so a cancelled Swift task can interrupt it.
final class CancelToken: @unchecked Sendable {
    private let lock = NSLock()
    private var cancel: OpaquePointer?
    private var fired = false

    func arm(_ c: OpaquePointer?) {
        lock.lock()
        cancel = c
        let already = fired
        lock.unlock()
        if already { fire() }
    }

    func disarm() {
        lock.lock()
        if let cancel { PQfreeCancel(cancel) }
        cancel = nil
        lock.unlock()
    }

    func fire() {
        lock.lock()
        defer { lock.unlock() }
        fired = true
        guard let cancel else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &buffer, 256)
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// The `plan_cache_mode` a statement runs under.
enum PlanMode: String {
    /// Planned for its values at each execution.
    case custom = "force_custom_plan"
    /// PostgreSQL's default: after five executions a generic plan is kept when it is no costlier.
    case reusable = "auto"
}

extension PGQuery {
    /// nil for a statement without parameters: it is never prepared, so its plan is never cached and the
    /// mode does not matter (BEGIN, COMMIT and the like run under whatever mode is set).
    var planMode: PlanMode? {
        guard !binds.isEmpty else { return nil }
        switch planning {
        case .perExecution: return .custom
        case .reusable: return .reusable
        }
    }
}
