import Testing

@testable import Curl

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "apns-id": "1"]
        headers.add(name: "Set-Cookie", value: "a")
        headers.add(name: "set-cookie", value: "b")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["APNS-ID"] == "1")
        #expect(headers.values(for: "SET-COOKIE") == ["a", "b"])
        #expect(headers["missing"] == nil)
        headers.replaceOrAdd(name: "set-cookie", value: "c")
        #expect(headers.values(for: "set-cookie") == ["c"])
        #expect(headers.map(\.name) == ["Content-Type", "apns-id", "set-cookie"])
    }
}
