import CCurl

/// The TCP connections of one driver, corked while `curl_multi_perform` runs.
///
/// libcurl 7.88 writes every HTTP/2 frame with a `send` of its own (a request's HEADERS, then its DATA:
/// two to three per notification under load), and with `TCP_NODELAY` each leaves as a small segment of
/// its own that both ends' TCP stacks process. Corked, the frames of one `perform` leave
/// in full segments when it returns, and uncorking sends whatever is left at once, so no request waits
/// longer than the `perform` that wrote it (Nagle's delayed-ACK stall never arises; docs/decisions.md, "No
/// Nagle; corked writes").
///
/// libcurl tells the driver of every socket it opens (`CURLOPT_SOCKOPTFUNCTION`) and lets it close them
/// (`CURLOPT_CLOSESOCKETFUNCTION`), so the set never holds a descriptor that was closed and reused.
/// Driver thread only: libcurl calls both callbacks from inside the driver's own libcurl calls.
final class CurlSocketCork {
    /// The connections open now.
    private(set) var sockets: [Int32] = []
    /// Sockets libcurl has opened in all (for tests: a refused connection's socket is opened and closed).
    private(set) var opened = 0

    /// Runs `body` (a `curl_multi_perform`) with every connection corked.
    func coalescing<T>(_ body: () -> T) -> T {
        for socket in sockets { _ = pl_socket_cork(socket, 1) }
        defer { for socket in sockets { _ = pl_socket_cork(socket, 0) } }
        return body()
    }

    fileprivate func open(_ socket: Int32) {
        opened += 1
        sockets.append(socket)
    }

    fileprivate func close(_ socket: Int32) {
        sockets.removeAll { $0 == socket }
    }

    /// Registers the callbacks on an easy handle; `self` must outlive every connection it opens, which the
    /// driver guarantees by cleaning up its multi handle before it lets go of the cork.
    func watch(_ easy: UnsafeMutableRawPointer) -> CURLcode {
        let me = Unmanaged.passUnretained(self).toOpaque()
        for result in [
            pl_easy_setopt_sockopt(easy, curlSocketOpened), pl_easy_setopt_ptr(easy, CURLOPT_SOCKOPTDATA, me),
            pl_easy_setopt_closesocket(easy, curlSocketClosing),
            pl_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, me),
        ] where result != CURLE_OK {
            return result
        }
        return CURLE_OK
    }
}

private let curlSocketOpened: curl_sockopt_callback = { context, socket, _ in
    if let context { Unmanaged<CurlSocketCork>.fromOpaque(context).takeUnretainedValue().open(socket) }
    return CURL_SOCKOPT_OK
}

private let curlSocketClosing: curl_closesocket_callback = { context, socket in
    if let context { Unmanaged<CurlSocketCork>.fromOpaque(context).takeUnretainedValue().close(socket) }
    return pl_socket_close(socket)
}
