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
    /// - Parameters:
    ///   - port: listen here instead of a free port of its own choosing (to start a server again where a
    ///     client knew it).
    ///   - certificate: the server's certificate and key, instead of `TestCertificates.shared`'s server pair.
    public init(
        files: [String: String] = ["hello.txt": "hello\n"],
        extraArguments: [String] = ["--echo-upload"],
        port fixedPort: Int? = nil,
        certificate: (certificate: String, key: String)? = nil
    ) throws {
        let certificates = TestCertificates.shared
        let serverCertificate = certificate?.certificate ?? certificates.serverCertificate
        let serverKey = certificate?.key ?? certificates.serverKey
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
            let port = fixedPort ?? LocalPort.free()
            // `timeout` bounds the server's life should the test process die without stopping it.
            let process = try ChildProcess(
                "/usr/bin/timeout",
                ["600", Self.executable, "--address=127.0.0.1", "--htdocs=\(htdocs)"] + extraArguments
                    + [String(port), serverKey, serverCertificate]
            )
            for _ in 0..<100 where process.isRunning && !LocalPort.canConnect(port) { usleep(20_000) }
            if process.isRunning, LocalPort.canConnect(port) { started = (process, port) } else { process.stop() }
        }
        guard let (process, port) = started else { throw NghttpdFailed() }
        self.process = process
        self.port = port
    }

    /// Freezes the server (SIGSTOP to its process group): connections stay open, nothing is answered, and new
    /// connections wait in the kernel's backlog.
    public func suspend() { process.signalGroup(SIGSTOP) }

    public func resume() { process.signalGroup(SIGCONT) }

    /// Kills the server at once (SIGKILL), as a crash would: the kernel resets its connections.
    public func kill() {
        process.signalGroup(SIGKILL)
        stop()
    }

    public func stop() {
        process.signalGroup(SIGCONT)  // a suspended server could not act on the SIGTERM
        process.stop()
        try? FileManager.default.removeItem(atPath: htdocs)
    }

    deinit { stop() }
}

/// nghttpd did not start listening.
public struct NghttpdFailed: Error {}
