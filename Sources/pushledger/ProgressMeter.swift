import Foundation

/// The arithmetic and pacing of a long command's progress, without I/O or a clock: fed the count so far (and the
/// total when known) with the seconds elapsed, it says what to show and when. On a terminal the status line is
/// redrawn at most every `redrawInterval`; otherwise a log line is due at most every `logInterval`.
struct ProgressMeter: Sendable {
    enum Mode: Sendable { case terminal, log }

    enum Output: Equatable, Sendable {
        /// Replace the status line on the terminal with this text.
        case redraw(String)
        /// Replace the status line with this text and end it: the command is done.
        case finalRedraw(String)
        /// Log this line.
        case log(String)
    }

    /// What is being done and counted: "rebuild" of "events", summarised as "rebuilt N events in …".
    let task: String
    let unit: String
    let pastTense: String
    let mode: Mode
    var redrawInterval = 0.1
    var logInterval = 5.0

    private(set) var done = 0
    private(set) var total: Int?
    private var lastShown: Double?

    init(task: String, unit: String, pastTense: String, mode: Mode) {
        self.task = task
        self.unit = unit
        self.pastTense = pastTense
        self.mode = mode
    }

    /// Records progress; returns what to show now, if anything. Totals only grow: a count that overtakes its
    /// estimate (rows that became due while the job ran) lifts it.
    mutating func update(done: Int, total: Int?, elapsed: Double) -> Output? {
        self.done = max(self.done, done)
        if let total { self.total = max(total, self.done) }
        let interval = mode == .terminal ? redrawInterval : logInterval
        // The terminal shows the first count at once; a log line is first due one interval in, so a quick run
        // logs only its summary.
        let due = lastShown.map { elapsed - $0 >= interval } ?? (mode == .terminal || elapsed >= interval)
        guard due else { return nil }
        lastShown = elapsed
        return mode == .terminal ? .redraw(status(elapsed: elapsed)) : .log(status(elapsed: elapsed))
    }

    /// The end of the run: `done` (when given) is the final count, `elapsed` the time the summary reports.
    mutating func finish(done: Int? = nil, elapsed: Double) -> Output {
        if let done { self.done = done }
        let line = summary(seconds: elapsed)
        return mode == .terminal ? .finalRedraw(line) : .log(line)
    }

    /// Items per second so far.
    func rate(elapsed: Double) -> Double { elapsed > 0 ? Double(done) / elapsed : 0 }

    /// Seconds left at the average rate so far; nil without a total or before anything was done.
    func remaining(elapsed: Double) -> Double? {
        let rate = rate(elapsed: elapsed)
        guard let total, rate > 0 else { return nil }
        return Double(max(0, total - done)) / rate
    }

    /// `rebuild: 12000/50000 events (24%), 8100 events/s, ETA 5 s`
    func status(elapsed: Double) -> String {
        var line = "\(task): \(done)"
        if let total {
            let percent = total > 0 ? Int(Double(done) * 100 / Double(total)) : 100
            line += "/\(total) \(unit) (\(percent)%)"
        } else {
            line += " \(unit)"
        }
        if done > 0 && elapsed > 0 { line += ", \(Int(rate(elapsed: elapsed).rounded())) \(unit)/s" }
        if let remaining = remaining(elapsed: elapsed) { line += ", ETA \(Self.duration(remaining))" }
        return line
    }

    /// `rebuilt 50000 events in 6.17 s (8103 events/s)`
    func summary(seconds: Double) -> String {
        "\(pastTense) \(done) \(unit) in \(String(format: "%.2f", seconds)) s "
            + "(\(Int(rate(elapsed: seconds).rounded())) \(unit)/s)"
    }

    /// `42 s`, `3 min 05 s`, `2 h 07 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(String(format: "%02d", whole % 60)) s" }
        return "\(whole / 3600) h \(String(format: "%02d", whole % 3600 / 60)) min"
    }
}
