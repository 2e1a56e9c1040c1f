import Foundation

/// The names of this process's system threads, as `top -H`, `perf` and /proc show them.
public enum SystemThreads {
    public static func names() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The name of this process's thread `id` (a Linux thread id), nil once it has ended.
    public static func name(ofThread id: Int) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How many threads are named `name`, once at least `count` are or `timeout` has passed (a thread names
    /// itself when it starts running, a moment after it was started).
    public static func count(
        named name: String, atLeast count: Int, timeout: Duration = .seconds(5)
    ) async
        -> Int
    {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let found = names().filter { $0 == name }.count
            if found >= count || ContinuousClock.now >= deadline { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
