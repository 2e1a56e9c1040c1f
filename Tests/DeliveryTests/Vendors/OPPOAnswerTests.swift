import Testing

@testable import Delivery

/// What an OPPO `unicast_batch` answer means for each registration id (docs/vendors.md, OPPO).
@Suite("OPPO answers")
struct OPPOAnswerTests {
    private func verdicts(_ status: Int, _ body: String, _ tokens: [String] = ["a", "b", "c"]) -> [Verdict] {
        VendorFixture.verdicts(OPPOClient.outcomes(VendorFixture.answer(status, body), tokens: tokens))
    }

    private func verdicts(_ body: String, _ tokens: [String] = ["a", "b", "c"]) -> [Verdict] {
        verdicts(200, body, tokens)
    }

    @Test("Each item answers its id: errorCode 10000 invalid, another errorCode permanent, a messageId delivered")
    func perItem() {
        let body =
            #"{"code":0,"message":"Success","data":[{"messageId":"m1","registrationId":"a"},"#
            + #"{"errorCode":10000,"errorMessage":"Invalid RegistrationId","registrationId":"b"},"#
            + #"{"errorCode":10001,"errorMessage":"Invalid Message","registrationId":"c"}]}"#
        #expect(verdicts(body) == [.success, .invalidToken, .permanent("10001")])
        #expect(OPPOClient.outcomes(VendorFixture.answer(body), tokens: ["a"]) == [.success(id: "m1")])
    }

    @Test("Code 11 is an invalid auth token: a new one, once")
    func auth() {
        #expect(verdicts(#"{"code":11,"message":"Invalid AuthToken"}"#, ["a", "b"]) == [.auth, .auth])
    }

    @Test("Code 33 is the daily quota, VendorQuota")
    func quota() {
        let body = #"{"code":33,"message":"The number of messages exceeds the daily limit"}"#
        #expect(verdicts(body, ["a", "b"]) == [.quota, .quota])
        #expect(OPPOClient.outcomes(VendorFixture.answer(body), tokens: ["a"])[0].reason?.description == "VendorQuota")
    }

    @Test("Codes -1 and -2 are retried", arguments: [-1, -2])
    func retry(code: Int) {
        #expect(verdicts(#"{"code":\#(code),"message":"Service Busy"}"#, ["a"]) == [.retry])
    }

    @Test("Other request codes are permanent, with the code")
    func permanent() {
        #expect(
            verdicts(#"{"code":13,"message":"Invalid AppKey"}"#, ["a", "b"]) == [.permanent("13"), .permanent("13")])
    }

    @Test("The reasons name OPPO")
    func vendor() {
        #expect(
            VendorFixture.vendors(OPPOClient.outcomes(VendorFixture.answer(#"{"code":13}"#), tokens: ["a"])) == [.oppo])
    }

    @Test(
        "Chinese registration ids are one part, CN_… or OPPO_CN_…, the others overseas",
        arguments: [
            ("abcdef", true), ("CN_abcdef", true), ("OPPO_CN_abcdef", true), ("GL_abcdef", false),
            ("OPPO_GL_abcdef", false), ("SG_abcdef", false),
        ])
    func hosts(token: String, chinese: Bool) {
        #expect(OPPOClient.isChinese(token) == chinese)
    }
}
