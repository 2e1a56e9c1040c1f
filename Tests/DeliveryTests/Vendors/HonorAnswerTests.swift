import Testing

@testable import Delivery

/// What a Honor send's answer means for each token (docs/vendors.md, Honor).
@Suite("Honor answers")
struct HonorAnswerTests {
    private func verdicts(_ status: Int, _ body: String, _ tokens: [String] = ["a", "b", "c"]) -> [Verdict] {
        VendorFixture.verdicts(HonorClient.outcomes(VendorFixture.answer(status, body), tokens: tokens))
    }

    private func verdicts(_ body: String, _ tokens: [String] = ["a", "b", "c"]) -> [Verdict] {
        verdicts(200, body, tokens)
    }

    @Test("Code 200 delivers every token but the expired ones (invalid) and the failed ones (retried)")
    func perToken() {
        let body =
            #"{"code":200,"message":"success","data":{"sendResult":true,"requestId":"r1","#
            + #""failTokens":["c"],"expireTokens":["b"]}}"#
        #expect(verdicts(body) == [.success, .invalidToken, .retry])
    }

    @Test("Code 200 without failed or expired tokens delivers them all")
    func allDelivered() {
        let body = #"{"code":200,"message":"success","data":{"sendResult":true,"requestId":"r1"}}"#
        #expect(verdicts(body) == [.success, .success, .success])
        #expect(HonorClient.outcomes(VendorFixture.answer(body), tokens: ["a"]) == [.success(id: "r1")])
    }

    @Test("80200003 (HTTP 401) is an expired access token: a new one, once")
    func auth() {
        #expect(verdicts(401, #"{"code":80200003,"message":"token expired"}"#, ["a"]) == [.auth])
    }

    @Test("HTTP 5xx is retried")
    func retry() {
        #expect(verdicts(500, "", ["a"]) == [.retry])
        #expect(verdicts(503, #"{"code":503}"#, ["a", "b"]) == [.retry, .retry])
    }

    @Test("Other codes are permanent, with the code")
    func permanent() {
        #expect(
            verdicts(#"{"code":80300002,"message":"no permission"}"#, ["a", "b"]) == [
                .permanent("80300002"), .permanent("80300002"),
            ])
        #expect(verdicts(400, #"{"code":80100003,"message":"bad message"}"#, ["a"]) == [.permanent("80100003")])
    }

    @Test("The reasons name Honor")
    func vendor() {
        let outcomes = HonorClient.outcomes(VendorFixture.answer(#"{"code":80300002}"#), tokens: ["a"])
        #expect(VendorFixture.vendors(outcomes) == [.honor])
    }
}
