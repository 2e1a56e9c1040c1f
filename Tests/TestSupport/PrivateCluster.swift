import Foundation

/// A PostgreSQL cluster of a test's own, which the test may stop and start with `pg_ctl` (an outage) without
/// disturbing the shared test cluster that other suites use at the same time. As root, the PostgreSQL
/// binaries run as the `postgres` user, as `scripts/lib/common.sh` does.
public final class PrivateCluster: @unchecked Sendable {
    public let directory: String
    public let port: Int
    public var baseURL: String { "postgresql://postgres@127.0.0.1:\(port)" }

    static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { $0.compare($1, options: .numeric) == .orderedAscending }.last.map {
            "\(root)/\($0)/bin"
        }
    }

    public static var isAvailable: Bool { TestDatabase.isAvailable && binaries != nil }

    public init() throws {
        directory = "/tmp/pl-private-pg-\(UUID().uuidString.prefix(8))"
        port = try LocalPorts.free()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 { try Self.shell("chown postgres:postgres \(directory)") }
        try run("initdb -D \(directory)/data -A trust -U postgres -E UTF8 --no-locale")
        try start()
        try Self.shell("psql -h 127.0.0.1 -p \(port) -U postgres -qc 'CREATE DATABASE app' postgres")
    }

    public var databaseURL: String { baseURL + "/app" }

    public func start() throws {
        try run(
            "pg_ctl -D \(directory)/data -l \(directory)/server.log -w -t 60 "
                + "-o '-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=100' start")
    }

    /// Stops the server at once (`-m fast`: sessions are cut, as in a crash or a failover).
    public func stop() throws { try run("pg_ctl -D \(directory)/data -m fast -w stop") }

    public func destroy() {
        try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func run(_ command: String) throws {
        guard let bin = Self.binaries else { throw ClusterFailure(message: "PostgreSQL binaries not found") }
        let full = "\(bin)/\(command)"
        try Self.shell(getuid() == 0 ? "runuser -u postgres -- bash -c \(Self.quoted(full))" : full)
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    static func shell(_ command: String) throws {
        // posix_spawn and waitpid rather than Foundation's Process: the server `pg_ctl start` leaves running
        // outlives the shell, and Process.waitUntilExit was seen to hang on such a child (left a zombie).
        // Errors go to a file, not a pipe, for the same reason: the server would keep a pipe open.
        let errors = "/tmp/pl-private-pg-\(UUID().uuidString.prefix(8)).err"
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let argv = ["/bin/bash", "-c", "(\(command)) 2>\(errors) </dev/null >/dev/null"]
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for arg in cArgs { free(arg) } }
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, cArgs, environ)
        guard spawned == 0 else { throw ClusterFailure(message: "cannot run bash: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // Exited normally with status 0 (WIFEXITED && WEXITSTATUS == 0).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw ClusterFailure(message: "\(command) (status \(status)): \(text)")
        }
    }

    public struct ClusterFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }
}

/// A TCP port nobody listens on right now.
public enum LocalPorts {
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw PrivateCluster.ClusterFailure(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
