import Testing

@testable import Delivery

/// What an HMS send's answer means for each token (docs/vendors.md, Huawei Push Kit).
@Suite("HMS answers")
struct HMSAnswerTests {
    private func verdicts(_ status: Int, _ body: String, _ tokens: [String] = ["a", "b"]) -> [Verdict] {
        VendorFixture.verdicts(HMSAnswer.outcomes(VendorFixture.answer(status, body), tokens: tokens))
    }

    private func verdicts(_ body: String, _ tokens: [String] = ["a", "b"]) -> [Verdict] {
        verdicts(200, body, tokens)
    }

    @Test("80000000 delivers every token")
    func success() {
        #expect(verdicts(#"{"code":"80000000","msg":"Success","requestId":"r1"}"#) == [.success, .success])
        #expect(
            HMSAnswer.outcomes(
                VendorFixture.answer(#"{"code":"80000000","msg":"Success","requestId":"r1"}"#), tokens: ["a"])
                == [.success(id: "r1")])
    }

    @Test("80100000 names the illegal tokens in msg: those are invalid, the others delivered")
    func partial() {
        let body = #"{"code":"80100000","msg":"{\"success\":1,\"failure\":1,\"illegal_tokens\":[\"b\"]}"}"#
        #expect(verdicts(body) == [.success, .invalidToken])
        let three = #"{"code":"80100000","msg":"{\"success\":1,\"failure\":2,\"illegal_tokens\":[\"a\",\"c\"]}"}"#
        #expect(verdicts(three, ["a", "b", "c"]) == [.invalidToken, .success, .invalidToken])
    }

    @Test("80300007 makes a one-token request's token invalid")
    func allInvalidOneToken() {
        #expect(verdicts(#"{"code":"80300007","msg":"All the tokens are invalid"}"#, ["a"]) == [.invalidToken])
    }

    @Test("80300007 for several tokens invalidates none of them (a wrong app id answers it too)")
    func allInvalidSeveralTokens() {
        let body = #"{"code":"80300007","msg":"All the tokens are invalid"}"#
        #expect(!verdicts(body).contains(.invalidToken))
        #expect(HMSAnswer.allInvalid(VendorFixture.answer(body)))
        #expect(!HMSAnswer.allInvalid(VendorFixture.answer(#"{"code":"80000000"}"#)))
    }

    @Test("A refused or expired access token (HTTP 401, 80200001, 80200003) is a new token and once again")
    func auth() {
        #expect(verdicts(401, #"{"code":"80200003","msg":"OAuth token expired"}"#) == [.auth, .auth])
        #expect(verdicts(401, #"{"code":"80200001","msg":"Oauth authentication error"}"#) == [.auth, .auth])
        #expect(verdicts(200, #"{"code":"80200003"}"#, ["a"]) == [.auth])
        #expect(verdicts(401, "") == [.auth, .auth])
    }

    @Test("HTTP 502, 503 and 81000001 are retried later")
    func retry() {
        #expect(verdicts(502, "<html>bad gateway</html>") == [.retry, .retry])
        #expect(verdicts(503, "") == [.retry, .retry])
        #expect(verdicts(200, #"{"code":"81000001","msg":"System inner error"}"#) == [.retry, .retry])
    }

    @Test("80300008, 80100003 and other codes are permanent, with the code")
    func permanent() {
        #expect(
            verdicts(#"{"code":"80300008","msg":"message body size exceeds"}"#) == [
                .permanent("80300008"), .permanent("80300008"),
            ])
        #expect(verdicts(#"{"code":"80100003","msg":"Illegal payload"}"#, ["a"]) == [.permanent("80100003")])
        #expect(verdicts(#"{"code":"80300010","msg":"x"}"#, ["a"]) == [.permanent("80300010")])
    }

    @Test("The reasons name HMS")
    func vendor() {
        let outcomes = HMSAnswer.outcomes(VendorFixture.answer(#"{"code":"80100003"}"#), tokens: ["a"])
        #expect(VendorFixture.vendors(outcomes) == [.hms])
        #expect(outcomes.first?.reason?.description == "HMS 80100003")
    }
}
