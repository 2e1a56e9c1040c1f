import Foundation

/// The environment variables that stand in for flags (`serve`'s HOST, PORT, …): a flag given on the command line
/// wins, then the variable, then the default. Unset and empty are the same, so an `EnvironmentFile` line `PORT=`
/// means the default; a value that cannot be used is a `UsageError` naming the variable.
struct EnvironmentVariables: Sendable {
    let values: [String: String]

    init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    func string(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(name) must be \(Self.describe(range)), not \"\(text)\"")
        }
        return value
    }

    /// "an integer from 0 to 65535", "an integer of at least 1", "an integer".
    static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound, range.upperBound) {
        case (Int.min, Int.max): "an integer"
        case (let low, Int.max): "an integer of at least \(low)"
        case (let low, let high): "an integer from \(low) to \(high)"
        }
    }
}
