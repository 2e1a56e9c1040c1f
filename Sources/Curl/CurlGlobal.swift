import CCurl

/// `curl_global_init` exactly once per process, before the first handle: it is not thread-safe itself, and a
/// Swift `static let` is initialised once under the runtime's own lock.
enum CurlGlobal {
    private static let result: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    static func ensureInitialized() -> CurlCode {
        CurlCode(result)
    }
}
