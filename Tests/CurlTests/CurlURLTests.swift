import Curl
import Testing

/// The send-time check of a channel URI reads it with libcurl's own parser: for the URLs the strict reading
/// accepts, libcurl must see the same host and port (else the request would not go where it was checked to).
struct CurlURLTests {
    @Test(arguments: [
        ("https://db5.notify.windows.com/?token=AwYAAAB%2bYuQ", "db5.notify.windows.com", 443),
        ("https://127.0.0.1:8443/wns/chan-1", "127.0.0.1", 8443),
        ("https://[::1]:9000/wns/a", "[::1]", 9000),
    ])
    func libcurlReadsHostAndPort(uri: String, host: String, port: Int) throws {
        let parsed = try #require(CurlURL(uri))
        #expect(parsed.scheme == "https")
        #expect(parsed.host == host)
        #expect(parsed.port == port)
    }

    /// Where libcurl's reading differs from a naive one: these are why the strict reading refuses them.
    @Test func libcurlsReadingsOfTrickyURLs() throws {
        #expect(try #require(CurlURL("https://db5.notify.windows.com@127.0.0.1:9/")).host == "127.0.0.1")
        #expect(CurlURL("not a url") == nil)
    }
}
