import Foundation

/// `openssl s_server -www` over TLS with the test certificates: an HTTPS server that speaks HTTP/1.1 only and
/// offers no ALPN, which an HTTP/2-only client must refuse.
public final class OpenSSLServer: @unchecked Sendable {
    public let port: Int
    private let process: ChildProcess

    public init() throws {
        let certificates = TestCertificates.shared
        var started: (ChildProcess, Int)?
        for _ in 0..<5 where started == nil {
            let port = LocalPort.free()
            // Through sh for its stdin: s_server reads commands from stdin, which must not be the test runner's.
            let command =
                "exec /usr/bin/timeout 600 /usr/bin/openssl s_server -quiet -www -accept \(port)"
                + " -cert \(certificates.serverCertificate) -key \(certificates.serverKey) < /dev/null"
            let process = try ChildProcess("/bin/sh", ["-c", command])
            // A `while`, not `for … where`: the latter would keep probing (connecting) after the server is up.
            var probes = 0
            while probes < 100, process.isRunning, !LocalPort.canConnect(port) {
                probes += 1
                usleep(20_000)
            }
            if process.isRunning, LocalPort.canConnect(port) { started = (process, port) } else { process.stop() }
        }
        guard let (process, port) = started else { throw NghttpdFailed() }
        self.process = process
        self.port = port
    }

    public func stop() { process.stop() }

    deinit { stop() }
}
