import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP helpers: free ports, readiness probes, and a listener that never answers.
public enum LocalPort {
    /// A port the kernel just handed out for an ephemeral bind, so it is free and not 8080/5432.
    public static func free() -> Int {
        let fd = listeningSocket(backlog: 1)
        defer { close(fd) }
        return port(of: fd)
    }

    /// A socket that accepts TCP connections in the kernel backlog but never reads or writes: TLS handshakes
    /// against it hang, which is how timeouts and cancellation are exercised.
    public static func silentListener() -> (fd: Int32, port: Int) {
        let fd = listeningSocket(backlog: 64)
        return (fd, port(of: fd))
    }

    public static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }

    private static func listeningSocket(backlog: Int32) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        precondition(bound == 0 && listen(fd, backlog) == 0, "cannot listen on loopback")
        return fd
    }

    private static func port(of fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
