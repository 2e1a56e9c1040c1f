import Foundation

/// Runs a command-line tool (curl, h2load, nghttp) to completion and captures what it printed.
enum CommandLineTool {
    struct Output {
        var exitCode: Int32
        var standardOutput: String
        var standardError: String
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Drain stderr on its own thread so a chatty tool cannot fill the pipe and stall while stdout is read.
        let errorData = LockedData()
        let errorReader = Thread {
            errorData.set(error.fileHandleForReading.readDataToEndOfFile())
        }
        errorReader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return Output(
            exitCode: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self)
        )
    }
}
