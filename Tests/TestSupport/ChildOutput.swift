import Foundation
import PushCore

/// A child process's standard output captured in a file. Polling the file avoids FileHandle readability
/// handlers, whose dispatch sources crash libdispatch on Linux when the pipe closes under them.
public struct ChildOutput: Sendable {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pl-out-\(UUID().uuidString).log").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw ServerFailure.didNotStart("cannot create \(path)")
        }
    }

    public func handle() throws -> FileHandle { try FileHandle(forWritingTo: URL(fileURLWithPath: path)) }

    public var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Waits for the first JSON line that has `key`, or fails when the process exits or time runs out.
    public func waitForJSON(key: String, process: Process, timeout: TimeInterval = 60) throws -> JSON {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for line in text.split(separator: "\n") {
                if let json = try? JSON.parse(String(line)), let value = json[key] { return value }
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw ServerFailure.didNotStart(text)
    }
}
