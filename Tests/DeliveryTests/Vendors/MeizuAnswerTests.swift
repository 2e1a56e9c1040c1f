import Testing

@testable import Delivery

/// What a Meizu `pushByPushId` answer means for each pushId (docs/vendors.md, Meizu).
@Suite("Meizu answers")
struct MeizuAnswerTests {
    private func verdicts(_ status: Int, _ body: String, _ tokens: [String] = ["a", "b"]) -> [Verdict] {
        VendorFixture.verdicts(MeizuClient.outcomes(VendorFixture.answer(status, body), tokens: tokens))
    }

    private func verdicts(_ body: String, _ tokens: [String] = ["a", "b"]) -> [Verdict] {
        verdicts(200, body, tokens)
    }

    @Test("Code 200 lists only the failed ids by code: 110002/110003 invalid, 1003/519 retried, others permanent")
    func perId() {
        let body =
            #"{"code":"200","message":"","value":{"110002":["b"],"110003":["c"],"1003":["d"],"519":["e"],"#
            + #""110001":["f"]},"msgId":"m1"}"#
        #expect(
            verdicts(body, ["a", "b", "c", "d", "e", "f"]) == [
                .success, .invalidToken, .invalidToken, .retry, .retry, .permanent("110001"),
            ])
    }

    @Test("Code 200 with no failed ids delivers them all")
    func allDelivered() {
        #expect(verdicts(#"{"code":"200","message":"","value":{}}"#) == [.success, .success])
    }

    @Test("110010 for the whole request is retried, as is HTTP 5xx")
    func retry() {
        #expect(verdicts(#"{"code":"110010","message":"push too frequently"}"#) == [.retry, .retry])
        #expect(verdicts(#"{"code":"1003","message":"busy"}"#, ["a"]) == [.retry])
        #expect(verdicts(503, "", ["a"]) == [.retry])
    }

    @Test("Other request codes are permanent, with the code (1006, a refused signature, too)")
    func permanent() {
        #expect(verdicts(#"{"code":"1006","message":"签名认证失败"}"#) == [.permanent("1006"), .permanent("1006")])
    }

    @Test("The reasons name Meizu")
    func vendor() {
        #expect(
            VendorFixture.vendors(MeizuClient.outcomes(VendorFixture.answer(#"{"code":"1006"}"#), tokens: ["a"]))
                == [.mz])
    }

    @Test("sign is the md5 of the fields sorted by name as k=v with nothing between, then the app secret")
    func signature() {
        // md5("appId=100messageJson={\"x\":1}pushIds=a,bs3cret"), by md5sum.
        let sign = MeizuClient.sign(
            [("pushIds", "a,b"), ("appId", "100"), ("messageJson", #"{"x":1}"#)], secret: "s3cret")
        #expect(sign == "4445485a9c58674e3aa5b8b8b5dd15e9")
    }
}
