import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP/2-over-TLS server for the tests: Debian's `nghttpd` serving a temporary htdocs folder (it answers
/// POST with the file too, which makes static provider look-alikes).
/// libcurl 7.88 cannot reuse cleartext h2c connections, so TLS with ALPN h2 is the only honest setup.
public final class Nghttpd: @unchecked Sendable {
    public static let executable = "/usr/sbin/nghttpd"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let port: Int
    public let htdocs: String
    private let process: ChildProcess

    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Starts the server and waits until it accepts connections.
    public init(
        files: [String: String] = ["hello.txt": "hello\n"],
        extraArguments: [String] = ["--echo-upload"]
    ) throws {
        let certificates = TestCertificates.shared
        htdocs = NSTemporaryDirectory() + "htdocs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: htdocs, withIntermediateDirectories: true)
        for (name, contents) in files {
            let path = htdocs + "/" + name
            let folder = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
        }
        var started: (ChildProcess, Int)?
        for _ in 0..<5 where started == nil {
            let port = LocalPort.free()
            // `timeout` bounds the server's life should the test process die without stopping it.
            let process = try ChildProcess(
                "/usr/bin/timeout",
                ["600", Self.executable, "--address=127.0.0.1", "--htdocs=\(htdocs)"] + extraArguments
                    + [String(port), certificates.serverKey, certificates.serverCertificate]
            )
            for _ in 0..<100 where process.isRunning && !LocalPort.canConnect(port) { usleep(20_000) }
            if process.isRunning, LocalPort.canConnect(port) { started = (process, port) } else { process.stop() }
        }
        guard let (process, port) = started else { throw NghttpdFailed() }
        self.process = process
        self.port = port
    }

    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: htdocs)
    }

    deinit { stop() }
}

/// nghttpd did not start listening.
public struct NghttpdFailed: Error {}
