import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `pushledger` binary's shared behaviour (issue 14): `--version`, `serve` flags from the environment,
/// LOG_LEVEL/LOG_FORMAT, the exit-status table and progress on stderr. Each test runs the real binary with
/// stdout and stderr captured apart, since the point is what goes where.
@Suite("Command line", .requiresPostgreSQL, .serialized)
struct CommandLineTests {
    static let unreachable = "postgresql://postgres@127.0.0.1:1/x"

    @Test("--version prints the version on stdout and exits 0")
    func version() throws {
        let run = try CLI.run(["--version"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.wholeMatch(of: /\d+\.\d+\.\d+\n/) != nil, "\(run)")
    }

    #if os(Linux)
        /// Linked is not enough: glibc's malloc would still serve the process if libjemalloc came after libc
        /// in the search order. Only jemalloc reads MALLOC_CONF, and `stats_print` makes it report at exit.
        @Test("the binary allocates with jemalloc")
        func allocatesWithJemalloc() throws {
            let run = try CLI.run(["--version"], environment: ["MALLOC_CONF": "stats_print:true"])
            #expect(run.status == 0, "\(run)")
            #expect(run.stderr.contains("Begin jemalloc statistics"), "\(run.stderr.prefix(300))")
        }
    #endif

    @Test("serve listens on HOST and PORT from the environment")
    func hostAndPortFromEnvironment() async throws {
        let db = try await TestDatabase.make()
        let port = Loopback.freePort()
        // Another loopback address than the default 127.0.0.1, so the test sees HOST used, not the default.
        #if os(Linux)
            let host = "127.0.0.2"
        #else
            let host = "localhost"
        #endif
        let server = try CLI.Server(
            ["serve"], environment: ["DATABASE_URL": db.url, "HOST": host, "PORT": "\(port)"])
        defer { server.stop() }
        #expect(server.listening["host"]?.stringValue == host)
        #expect(server.listening["port"]?.intValue == Int64(port))
        let health = try await TestHTTP(baseURL: "http://\(host):\(port)").send("GET", "/health")
        #expect(health.status == 200)
        #if os(Linux)
            #expect(!Loopback.canConnect("127.0.0.1", port), "bound to the default host instead of HOST")
        #endif
    }

    @Test("--port wins over PORT")
    func flagBeatsEnvironment() async throws {
        let db = try await TestDatabase.make()
        let fromEnvironment = Loopback.freePort()
        var fromFlag = Loopback.freePort()
        while fromFlag == fromEnvironment { fromFlag = Loopback.freePort() }
        let server = try CLI.Server(
            ["serve", "--port", "\(fromFlag)"], environment: ["DATABASE_URL": db.url, "PORT": "\(fromEnvironment)"])
        defer { server.stop() }
        #expect(server.listening["port"]?.intValue == Int64(fromFlag))
        #expect(try await TestHTTP(baseURL: "http://127.0.0.1:\(fromFlag)").send("GET", "/health").status == 200)
        #expect(!Loopback.canConnect("127.0.0.1", fromEnvironment))
    }

    @Test("an unusable PORT or serve variable is a usage error (64) naming the variable")
    func badEnvironmentValue() throws {
        let run = try CLI.run(["serve"], environment: ["DATABASE_URL": Self.unreachable, "PORT": "abc"])
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("PORT") && run.stderr.contains("abc"), "\(run)")
        #expect(run.stdout.isEmpty)
        let senders = try CLI.run(
            ["serve"], environment: ["DATABASE_URL": Self.unreachable, "PUSHLEDGER_SENDERS": "x"])
        #expect(senders.status == 64, "\(senders)")
        #expect(senders.stderr.contains("PUSHLEDGER_SENDERS"), "\(senders)")
        let transport = try CLI.run(
            ["serve"], environment: ["DATABASE_URL": Self.unreachable, "PUSHLEDGER_TRANSPORT": "curl"])
        #expect(transport.status == 64, "\(transport)")
        #expect(
            transport.stderr.contains("PUSHLEDGER_TRANSPORT") && transport.stderr.contains("nghttp2, libcurl"),
            "\(transport)")
        let flag = try CLI.run(["serve", "--transport", "h2"], environment: ["DATABASE_URL": Self.unreachable])
        #expect(flag.status == 64 && flag.stderr.contains("got h2"), "\(flag)")
    }

    @Test("LOG_LEVEL or LOG_FORMAT with an unknown value is a usage error (64) naming it")
    func badLogSettings() throws {
        let level = try CLI.run(["migrate"], environment: ["DATABASE_URL": Self.unreachable, "LOG_LEVEL": "bogus"])
        #expect(level.status == 64, "\(level)")
        #expect(level.stderr.contains("LOG_LEVEL"), "\(level)")
        let format = try CLI.run(["migrate"], environment: ["DATABASE_URL": Self.unreachable, "LOG_FORMAT": "xml"])
        #expect(format.status == 64, "\(format)")
        #expect(format.stderr.contains("LOG_FORMAT"), "\(format)")
    }

    @Test("LOG_FORMAT=json: every stderr line of a serve run is a JSON object with ts, level, label and message")
    func jsonLogs() async throws {
        let db = try await TestDatabase.make()
        // debug brings in swift-service-lifecycle's lines, whose metadata holds quotes, brackets and backslashes.
        let server = try CLI.Server(
            ["serve", "--port", "0"], environment: ["DATABASE_URL": db.url, "LOG_FORMAT": "json", "LOG_LEVEL": "debug"])
        let port = try #require(server.listening["port"]?.intValue)
        // stdout keeps exactly its one machine-readable line.
        #expect(server.stdout == "{\"listening\":{\"host\":\"127.0.0.1\",\"port\":\(port)}}\n", "\(server.stdout)")
        let health = try await TestHTTP(baseURL: "http://127.0.0.1:\(port)").send("GET", "/health")
        #expect(health.status == 200)
        let status = server.stop()
        #expect(status == 0)

        let lines = server.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count >= 3, "\(server.stderr)")
        #expect(server.stderr.hasSuffix("\n"))
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            guard let object else { continue }
            for key in ["ts", "level", "label", "message"] {
                #expect(object[key] is String, "no \(key) in \(line)")
            }
            let ts = object["ts"] as? String ?? ""
            #expect(ts.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "ts \(ts)")
            let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
            #expect(levels.contains(object["level"] as? String ?? ""), "level in \(line)")
            #expect(object.values.allSatisfy { $0 is String }, "metadata values are strings: \(line)")
        }
        // Metadata is flattened at the top level, with nested values JSON-encoded.
        #expect(lines.contains { $0.contains("\"sl-service\":") }, "\(server.stderr)")
        #expect(lines.contains { $0.contains("\"message\":\"pushledger ") && $0.contains("starting") })
    }

    @Test("a command against an unreachable database exits 69 with one line")
    func unreachableDatabase() throws {
        for arguments in [["migrate"], ["rebuild"], ["retention", "run"], ["app", "show", "--app", "a"]] {
            let run = try CLI.run(arguments, environment: ["DATABASE_URL": Self.unreachable])
            #expect(run.status == 69, "\(arguments): \(run)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(run)")
            #expect(run.stderr.contains("database"), "\(arguments): \(run)")
        }
    }

    @Test("usage errors exit 64 and LeanCloud errors 1, whatever the command")
    func exitStatusTable() async throws {
        let db = try await TestDatabase.make()
        let badInstant = try CLI.run(
            ["replay", "--app", "a", "--at", "yesterday"], environment: ["DATABASE_URL": db.url])
        #expect(badInstant.status == 64, "\(badInstant)")
        let badNow = try CLI.run(["retention", "run", "--now", "soon"], environment: ["DATABASE_URL": db.url])
        #expect(badNow.status == 64, "\(badNow)")
        let badDay = try CLI.run(
            ["report", "billing", "--app", "a", "--to", "1/2/2026"], environment: ["DATABASE_URL": db.url])
        #expect(badDay.status == 64, "\(badDay)")
        let noApp = try CLI.run(["app", "show", "--app", "nope"], environment: ["DATABASE_URL": db.url])
        #expect(noApp.status == 1, "\(noApp)")
        #expect(noApp.stderr.contains("\"code\":101"), "\(noApp)")
        let noReportApp = try CLI.run(["report", "billing", "--app", "nope"], environment: ["DATABASE_URL": db.url])
        #expect(noReportApp.status == 1, "\(noReportApp)")
    }

    @Test("rebuild, replay and retention run log their progress summary when stderr is not a terminal")
    func progressSummaries() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "cli", appId: "cli", appKey: "cliKey", masterKey: "cliMaster")
        let meta = EventMetadata(keyKind: "client")
        for i in 0..<5 {
            _ = try await db.ledger.installations.save(
                appId: app.appId,
                body: [
                    "deviceType": "android", "installationId": .string("cli-\(i)"), "channels": ["news"],
                ], metadata: meta, now: LeanDate.parse("2026-01-01T00:00:00Z")!)
        }
        let events = try await db.eventCount()
        let environment = ["DATABASE_URL": db.url, "LOG_FORMAT": "json"]

        let rebuild = try CLI.run(["rebuild"], environment: environment)
        #expect(rebuild.status == 0, "\(rebuild)")
        #expect(rebuild.stdout.hasPrefix("rebuilt projections from \(events) events ("), "stdout unchanged: \(rebuild)")
        let rebuildLines = rebuild.logLines.filter { $0["label"] == "pushledger.rebuild" }
        // The summary, then where the time went.
        let rebuilt = try #require(rebuildLines.dropLast().last, "\(rebuild)")
        #expect(rebuilt["message"]?.hasPrefix("rebuilt \(events) events in ") == true, "\(rebuilt)")
        #expect(rebuilt["done"] == "\(events)" && rebuilt["total"] == "\(events)", "\(rebuilt)")
        #expect(rebuilt["level"] == "info")
        let phases = try #require(rebuildLines.last)
        #expect(phases["message"]?.hasPrefix("rebuild phases: prepare ") == true, "\(phases)")
        #expect(
            ["prepare", "folds", "pages", "summaries", "indexes", "statistics"].allSatisfy { phases[$0] != nil },
            "\(phases)")

        // The text format keeps the words scripts/bench-replay reads.
        let replay = try CLI.run(
            [
                "replay", "--app", "cli", "--at", "2026-01-02T00:00:00Z", "--where", #"{"channels":"news"}"#,
                "--format", "json",
            ],
            environment: ["DATABASE_URL": db.url])
        #expect(replay.status == 0, "\(replay)")
        #expect(try JSON.parse(Array(replay.stdout.trimmed.utf8)).arrayValue?.count == 5, "\(replay)")
        #expect(replay.stderr.contains(/replayed 5 events in [\d.]+ s/), "\(replay)")

        let retention = try CLI.run(["retention", "run", "--now", "2026-06-01T00:00:00Z"], environment: environment)
        #expect(retention.status == 0, "\(retention)")
        #expect(try JSON.parse(Array(retention.stdout.trimmed.utf8))["expiredInstallations"] == 5, "\(retention)")
        // Five stale installations, and whatever usage days there are to close.
        let examined = try #require(retention.logLines.last { $0["label"] == "pushledger.retention" }, "\(retention)")
        let done = try #require(examined["done"].flatMap { Int($0) }, "\(examined)")
        #expect(done >= 5 && examined["total"] == "\(done)", "\(examined)")
        #expect(examined["message"]?.contains("examined \(done) items in ") == true, "\(examined)")
    }
}

/// Runs the binary with a clean slate of the variables under test, so the caller's shell cannot leak in.
enum CLI {
    static let variables = [
        "HOST", "PORT", "DATABASE_URL", "LOG_LEVEL", "LOG_FORMAT", "METRICS_TOKEN", "PUSHLEDGER_CONNECTIONS",
        "PUSHLEDGER_SENDERS", "PUSHLEDGER_BATCH_LEASE_SECONDS", "PUSHLEDGER_RETENTION_INTERVAL_SECONDS",
    ]

    struct Run: CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String

        var description: String { "status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

        /// Stderr's JSON log lines (LOG_FORMAT=json), fields as strings.
        var logLines: [[String: String]] {
            stderr.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
        }
    }

    static func process(_ arguments: [String], environment: [String: String]) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ServerProcess.binaryPath)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in variables { env[name] = nil }
        env.merge(environment) { _, new in new }
        p.environment = env
        return p
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let p = process(arguments, environment: environment)
        let out = try ChildOutput()
        let err = try ChildOutput()
        defer { remove(out, err) }
        p.standardOutput = try out.handle()
        p.standardError = try err.handle()
        try p.run()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: out.text, stderr: err.text)
    }

    static func remove(_ outputs: ChildOutput...) {
        for output in outputs { try? FileManager.default.removeItem(atPath: output.path) }
    }

    /// `serve` running until `stop()`; `listening` is its `{"listening":…}` line. The retention job is off
    /// unless asked for: its first run waits 5 s after start and holds up a SIGTERM until then.
    final class Server {
        let process: Process
        let out: ChildOutput
        let err: ChildOutput
        let listening: JSON

        init(_ arguments: [String], environment: [String: String]) throws {
            process = CLI.process(
                arguments, environment: ["PUSHLEDGER_RETENTION_INTERVAL_SECONDS": "0"].merging(environment) { $1 })
            out = try ChildOutput()
            err = try ChildOutput()
            process.standardOutput = try out.handle()
            process.standardError = try err.handle()
            try process.run()
            do {
                listening = try out.waitForJSON(key: "listening", process: process)
            } catch {
                process.waitUntilExit()
                throw ServerFailure.didNotStart(out.text + err.text)
            }
        }

        var stdout: String { out.text }
        var stderr: String { err.text }

        /// SIGTERM, as a service manager stops it; returns the exit status.
        @discardableResult
        func stop() -> Int32 {
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
            return process.terminationStatus
        }

        deinit {
            stop()
            CLI.remove(out, err)
        }
    }
}

/// Loopback TCP probes: a port nobody listens on, and whether something does.
enum Loopback {
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = Self.address("127.0.0.1", port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        precondition(bound == 0, "cannot bind a loopback port")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func canConnect(_ host: String, _ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = Self.address(host, port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
