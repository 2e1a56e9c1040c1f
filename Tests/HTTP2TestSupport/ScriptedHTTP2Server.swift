import Foundation

/// A tiny HTTP/2-over-TLS server (Python, standard library only) that answers each request with a scripted
/// action, for what nghttpd never does: resetting streams, refusing them, dropping the connection mid-response.
/// Requests take the actions in arrival order; the last action repeats.
public final class ScriptedHTTP2Server: @unchecked Sendable {
    public enum Action: String, Sendable {
        /// HEADERS `:status 200` with END_STREAM.
        case answer
        /// RST_STREAM(REFUSED_STREAM): not processed, the client may run it again.
        case refuse
        /// RST_STREAM(INTERNAL_ERROR) before any response byte.
        case reset
        /// HEADERS `:status 200` without END_STREAM, then RST_STREAM(INTERNAL_ERROR).
        case startThenReset = "start-reset"
        /// HEADERS `:status 200` without END_STREAM, then the connection closes.
        case startThenClose = "start-close"
    }

    public let port: Int
    public var baseURL: String { "https://127.0.0.1:\(port)" }
    private let process: ChildProcess

    public init(_ actions: [Action]) throws {
        let certificates = TestCertificates.shared
        let script = NSTemporaryDirectory() + "scripted-h2-" + UUID().uuidString + ".py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        var started: (ChildProcess, Int)?
        for _ in 0..<5 where started == nil {
            let port = LocalPort.free()
            let process = try ChildProcess(
                "/usr/bin/timeout",
                [
                    "600", "/usr/bin/python3", script, String(port), certificates.serverCertificate,
                    certificates.serverKey, actions.map(\.rawValue).joined(separator: ","),
                ])
            // A `while`, not `for … where`: the latter would keep probing (connecting) after the server is up.
            var probes = 0
            while probes < 250, process.isRunning, !LocalPort.canConnect(port) {
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

    /// Frames by hand: the server's SETTINGS, ACKs for the client's SETTINGS and PINGs, and for each request
    /// HEADERS frame its action. `:status 200` is HPACK static index 8, the single byte 0x88.
    private static let script = #"""
        import socket, ssl, struct, sys, threading
        port, cert, key, actions = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4].split(",")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        context.set_alpn_protocols(["h2"])
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        lock, served = threading.Lock(), [0]

        def frame(kind, flags, stream, payload=b""):
            return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload

        def exactly(s, n):
            data = b""
            while len(data) < n:
                chunk = s.recv(n - len(data))
                if not chunk:
                    raise EOFError()
                data += chunk
            return data

        def serve(connection):
            try:
                s = context.wrap_socket(connection, server_side=True)
                exactly(s, 24)
                s.sendall(frame(4, 0, 0))
                while True:
                    head = exactly(s, 9)
                    kind, flags = head[3], head[4]
                    stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                    payload = exactly(s, int.from_bytes(head[:3], "big"))
                    if kind == 4 and not flags & 1:
                        s.sendall(frame(4, 1, 0))
                    elif kind == 6 and not flags & 1:
                        s.sendall(frame(6, 1, 0, payload))
                    elif kind == 7:
                        return
                    elif kind == 1:
                        with lock:
                            action = actions[min(served[0], len(actions) - 1)]
                            served[0] += 1
                        if action == "answer":
                            s.sendall(frame(1, 5, stream, b"\x88"))
                        elif action == "refuse":
                            s.sendall(frame(3, 0, stream, struct.pack(">I", 7)))
                        elif action == "reset":
                            s.sendall(frame(3, 0, stream, struct.pack(">I", 2)))
                        elif action == "start-reset":
                            s.sendall(frame(1, 4, stream, b"\x88") + frame(3, 0, stream, struct.pack(">I", 2)))
                        elif action == "start-close":
                            s.sendall(frame(1, 4, stream, b"\x88"))
                            return
            except Exception:
                pass
            finally:
                connection.close()

        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#
}
