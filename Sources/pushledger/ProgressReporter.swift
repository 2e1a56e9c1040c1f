import Foundation
import Logging
import PushCore
import PushLedgerServer
import Synchronization

/// Shows the progress of `rebuild`, `replay` and `retention run` on stderr, with count, rate and ETA: on a terminal
/// one status line redrawn in place; otherwise (a pipe, a file, a service's journal, or LOG_FORMAT=json) an info
/// log line at most every 5 s, then the summary as a last line. Fed from any task through `callback`; stdout is
/// left alone for the lines scripts parse.
final class ProgressReporter: Sendable {
    private struct State {
        var meter: ProgressMeter
        /// A status line is on the terminal and not ended yet.
        var drawn = false
    }

    private let state: Mutex<State>
    private let logger: Logger
    private let started = ContinuousClock.now

    init(task: String, unit: String, pastTense: String, terminal: Bool = ProgressReporter.stderrIsTerminal) {
        state = Mutex(
            State(
                meter: ProgressMeter(
                    task: task, unit: unit, pastTense: pastTense, mode: terminal ? .terminal : .log)))
        logger = Logger(label: "pushledger.\(task)")
    }

    /// Redraw only for a person: JSON logs are for machines even on a terminal, and a redrawn line would break them.
    static var stderrIsTerminal: Bool { isatty(2) == 1 && LogSetup.active?.format != .json }

    /// What the ledger's jobs take as their `progress` parameter: (done so far, total when known).
    var callback: @Sendable (Int, Int?) -> Void {
        { [self] done, total in update(done: done, total: total) }
    }

    func update(done: Int, total: Int?) {
        let elapsed = secondsSinceStart
        state.withLock { state in
            if let output = state.meter.update(done: done, total: total, elapsed: elapsed) {
                show(output, &state, elapsed: elapsed)
            }
        }
    }

    /// The summary. `done` is the final count when the job reports its own; `seconds` the time it measured, so the
    /// summary says what its result says.
    func finish(done: Int? = nil, seconds: Double? = nil) {
        let elapsed = seconds ?? secondsSinceStart
        state.withLock { state in
            show(state.meter.finish(done: done, elapsed: elapsed), &state, elapsed: elapsed)
        }
    }

    /// A line after the summary (say, where the time went), through the log: in JSON when the log is JSON.
    func note(_ message: String, metadata: Logger.Metadata = [:]) {
        logger.info("\(message)", metadata: metadata)
    }

    /// Ends a status line left on the terminal, so the error message of a failed run starts on its own line.
    func interrupt() {
        state.withLock { state in
            if state.drawn { Self.writeStandardError("\n") }
            state.drawn = false
        }
    }

    /// Runs `body` with `callback`, ending the status line if it throws.
    func tracking<T>(_ body: (@escaping @Sendable (Int, Int?) -> Void) async throws -> T) async throws -> T {
        do {
            return try await body(callback)
        } catch {
            interrupt()
            throw error
        }
    }

    private var secondsSinceStart: Double {
        (ContinuousClock.now - started).timeInterval
    }

    private func show(_ output: ProgressMeter.Output, _ state: inout State, elapsed: Double) {
        switch output {
        case .redraw(let line):
            Self.writeStandardError("\r\u{1B}[K" + line)
            state.drawn = true
        case .finalRedraw(let line):
            Self.writeStandardError("\r\u{1B}[K" + line + "\n")
            state.drawn = false
        case .log(let line):
            var metadata: Logger.Metadata = [
                "done": "\(state.meter.done)", "rate": "\(Int(state.meter.rate(elapsed: elapsed).rounded()))",
                "seconds": "\(String(format: "%.2f", elapsed))",
            ]
            if let total = state.meter.total { metadata["total"] = "\(total)" }
            if let remaining = state.meter.remaining(elapsed: elapsed) {
                metadata["eta_seconds"] = "\(Int(remaining.rounded(.up)))"
            }
            logger.info("\(line)", metadata: metadata)
        }
    }

    private static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
