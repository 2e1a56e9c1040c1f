import CCurl
import HTTPTypes

/// A reusable easy handle plus the buffers of the request it is running. Lives on the driver thread only.
///
/// Options that are the same for every request (TLS, callbacks, HTTP/2) are set once at creation; `prepare`
/// sets only what differs per request, so reusing a handle costs a few `setopt` calls and no allocations
/// beyond the header list and the response body.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// This request's own header lines; when it shares a `CurlHeaderBlock`, the last own line links to it.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var ownTail: UnsafeMutablePointer<curl_slist>?
    private var bodyBuffer: UnsafeMutableRawPointer?
    private var bodyCapacity = 0

    var job: CurlJob?
    var responseStarted = false
    /// Bumped whenever the handle starts a request or a re-run, so stale watch entries can be told apart.
    private(set) var generation = 0
    private let watch: CurlCompletionWatch?
    private var completionNoted = false
    /// The header block of a final (non-1xx) response ended.
    private var finalHeadersComplete = false
    private var lastStatus = 0
    /// The final response's header lines as received, one per line; parsed only if someone reads them
    /// (a successful push reads none).
    private var rawHeaders: [UInt8] = []
    private var announcedLength: Int?
    var responseBody: [UInt8] = []

    /// Creates the handle with the client-wide options; throws when libcurl refuses one.
    init(
        configuration: CurlConfiguration, watch: CurlCompletionWatch? = nil, cork: CurlSocketCork? = nil
    )
        throws(CurlError)
    {
        self.watch = watch
        // curl_easy_init would run a non-thread-safe global init of its own otherwise.
        _ = CurlGlobal.ensureInitialized()
        guard let easy = curl_easy_init() else {
            throw .invalidRequest(code: CurlCode(CURLE_OUT_OF_MEMORY), message: "curl_easy_init failed")
        }
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let me = Unmanaged.passUnretained(self).toOpaque()
        let tls = configuration.tls
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(pl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me))
        set(pl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set(pl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlTransferWriteBody))
        set(pl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me))
        set(pl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlTransferWriteHeader))
        set(pl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me))
        set(pl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // A request never follows a redirect, nor uses another scheme than allowed: a URL a client supplied (a
        // WNS channel URI) must not lead anywhere but where it was checked to lead (SPEC §12.7).
        set(pl_easy_setopt_str(easy, CURLOPT_PROTOCOLS_STR, configuration.protocols))
        set(pl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        set(pl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS))
        // Wait for an HTTP/2 connection that is still being set up rather than opening another one.
        set(pl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        set(pl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1))
        set(pl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout)))
        set(pl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, tls.verifyPeer ? 1 : 0))
        set(pl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, tls.verifyHost ? 2 : 0))
        if let caFile = tls.caFile { set(pl_easy_setopt_str(easy, CURLOPT_CAINFO, caFile)) }
        if let certificate = tls.clientCertificateFile {
            set(pl_easy_setopt_str(easy, CURLOPT_SSLCERT, certificate))
            set(pl_easy_setopt_str(easy, CURLOPT_SSLCERTTYPE, "PEM"))
        }
        if let key = tls.clientKeyFile {
            set(pl_easy_setopt_str(easy, CURLOPT_SSLKEY, key))
            set(pl_easy_setopt_str(easy, CURLOPT_SSLKEYTYPE, "PEM"))
        }
        if let password = tls.clientKeyPassword { set(pl_easy_setopt_str(easy, CURLOPT_KEYPASSWD, password)) }
        if let agent = configuration.userAgent { set(pl_easy_setopt_str(easy, CURLOPT_USERAGENT, agent)) }
        if configuration.verbose { set(pl_easy_setopt_long(easy, CURLOPT_VERBOSE, 1)) }
        if let cork { set(cork.watch(easy)) }
        if code != CURLE_OK {
            let failure = CurlError.invalidRequest(code: CurlCode(code), message: CurlCode(code).description)
            curl_easy_cleanup(easy)
            errorBuffer.deallocate()
            throw failure
        }
    }

    deinit {
        freeOwnHeaders()
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
        bodyBuffer?.deallocate()
    }

    /// Sets the per-request options. libcurl keeps pointers to the header list and the body until the
    /// transfer is removed, which is why both live here rather than on the stack.
    func prepare(_ request: CurlRequest, timeoutMilliseconds: Int) throws(CurlError) {
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(pl_easy_setopt_str(easy, CURLOPT_URL, request.url))
        set(pl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, setHeaders(request)))
        switch request.method {
        case .get:
            set(pl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
            set(pl_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, nil))
        case .head:
            set(pl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
            set(pl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
            set(pl_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, nil))
        case .post:
            set(setBody(request.body ?? []))
            set(pl_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, nil))
        default:
            // Other methods ride on GET or POST framing with the verb replaced.
            if let body = request.body {
                set(setBody(body))
            } else {
                set(pl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
            }
            set(pl_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        set(pl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
        errorBuffer[0] = 0
        resetResponse()
        if code != CURLE_OK {
            throw .invalidRequest(code: CurlCode(code), message: CurlCode(code).description)
        }
    }

    /// Forgets a partial response before the request is run again on another connection.
    func resetResponse() {
        generation &+= 1
        completionNoted = false
        responseStarted = false
        finalHeadersComplete = false
        lastStatus = 0
        rawHeaders.removeAll(keepingCapacity: true)
        announcedLength = nil
        responseBody.removeAll(keepingCapacity: true)
    }

    func setTimeout(milliseconds: Int) {
        _ = pl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, milliseconds)
    }

    /// Drops per-request state so the handle can serve the next request.
    func recycle() {
        job = nil
        freeOwnHeaders()
        rawHeaders.removeAll(keepingCapacity: true)
        responseBody = []
    }

    func makeResponse() -> CurlResponse {
        var status = 0
        _ = pl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = pl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        let body = responseBody
        responseBody = []
        return CurlResponse(
            status: status, headerLines: rawHeaders, body: body, version: Self.version(version))
    }

    func makeError(_ code: CURLcode) -> CurlError {
        let detail = errorBuffer[0] == 0 ? CurlCode(code).description : String(cString: errorBuffer)
        return .transfer(code: CurlCode(code), message: detail, responseStarted: responseStarted)
    }

    /// New connections this transfer had to open.
    func connectionsOpened() -> Int {
        var count = 0
        _ = pl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    /// The list libcurl sends: the request's own lines, then its shared block (which already carries
    /// `Expect:` for requests with a body), or the own lines alone.
    private func setHeaders(_ request: CurlRequest) -> UnsafeMutablePointer<curl_slist>? {
        freeOwnHeaders()
        for field in request.headers { headerList = curl_slist_append(headerList, CurlHeaderBlock.line(field)) }
        if let shared = request.sharedHeaders {
            guard var tail = headerList else { return shared.list }
            while let next = tail.pointee.next { tail = next }
            tail.pointee.next = shared.list
            ownTail = tail
            return headerList
        }
        if request.body != nil {
            // HTTP/1.1 fallbacks would otherwise stall a round trip on "Expect: 100-continue".
            headerList = curl_slist_append(headerList, "Expect:")
        }
        return headerList
    }

    /// Frees the own lines only: the shared block they may link to belongs to its `CurlHeaderBlock`.
    private func freeOwnHeaders() {
        ownTail?.pointee.next = nil
        ownTail = nil
        curl_slist_free_all(headerList)
        headerList = nil
    }

    private func setBody(_ body: [UInt8]) -> CURLcode {
        if bodyCapacity < max(body.count, 1) {
            bodyBuffer?.deallocate()
            bodyCapacity = max(body.count, 256)
            bodyBuffer = .allocate(byteCount: bodyCapacity, alignment: 1)
        }
        body.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { bodyBuffer!.copyMemory(from: base, byteCount: bytes.count) }
        }
        _ = pl_easy_setopt_long(easy, CURLOPT_NOBODY, 0)
        let sized = pl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        guard sized == CURLE_OK else { return sized }
        return pl_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, bodyBuffer)
    }

    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        responseStarted = true
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        guard end > 0 else {
            if lastStatus >= 200 {
                finalHeadersComplete = true
                noteIfComplete()
            }
            return
        }
        if end >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
            line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/")
        {
            // A new status line: an interim (1xx) response's or a redirect's headers do not carry over.
            rawHeaders.removeAll(keepingCapacity: true)
            announcedLength = nil
            finalHeadersComplete = false
            lastStatus = Self.statusCode(in: UnsafeRawBufferPointer(rebasing: line[0..<end]))
            return
        }
        let trimmed = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if let length = CurlHeaderLines.contentLength(in: trimmed) { announcedLength = length }
        rawHeaders.append(contentsOf: trimmed)
        rawHeaders.append(0x0A)
    }

    /// Whether a whole response arrived: final headers plus exactly the announced `content-length`.
    ///
    /// A server may answer before reading the request body and then reset the stream with NO_ERROR
    /// (RFC 9113 §8.1); libcurl 7.88 reports that as a stream or send error although the response is complete.
    var hasCompleteResponse: Bool {
        guard finalHeadersComplete else { return false }
        // These statuses never carry a body, announced or not.
        if lastStatus == 204 || lastStatus == 304 { return responseBody.isEmpty }
        guard let announcedLength else { return false }
        return responseBody.count == announcedLength
    }

    /// The code in "HTTP/2 200" or "HTTP/1.1 404 Not Found"; 0 when unreadable.
    static func statusCode(in line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0
        var index = space + 1
        while index < line.count, index < space + 4, line[index] >= 0x30, line[index] <= 0x39 {
            code = code * 10 + Int(line[index] - 0x30)
            index += 1
        }
        return code
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) {
        responseStarted = true
        responseBody.append(contentsOf: bytes)
        noteIfComplete()
    }

    private func noteIfComplete() {
        guard !completionNoted, let watch, hasCompleteResponse else { return }
        completionNoted = true
        watch.add(self)
    }

    private static func version(_ value: Int) -> HTTPVersion {
        switch value {
        case CURL_HTTP_VERSION_1_0: .http1_0
        case CURL_HTTP_VERSION_1_1: .http1_1
        case CURL_HTTP_VERSION_2_0: .http2
        case CURL_HTTP_VERSION_3: .http3
        default: .unknown
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

private let curlTransferWriteBody: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

private let curlTransferWriteHeader: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
