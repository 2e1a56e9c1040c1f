#if canImport(Glibc)
    import Glibc
#endif

/// A child process spawned with an empty signal mask. Foundation's `Process` spawns from threads that block
/// SIGTERM, and nghttpd never unblocks it, so a server started that way could not be stopped.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private var reaped = false

    public init(_ executable: String, _ arguments: [String]) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw SpawnFailed(errno: result) }
        self.pid = pid
    }

    public var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
        return !reaped
    }

    /// Sends `signal` to the child's process group (`timeout`, which starts the servers, leads one).
    public func signalGroup(_ signal: Int32) {
        guard !reaped else { return }
        kill(-pid, signal)
    }

    public func stop() {
        guard !reaped else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped = true
    }

    deinit { stop() }
}

/// posix_spawn failed.
public struct SpawnFailed: Error {
    public let errno: Int32
}
