import Testing

@testable import Delivery

/// What a Xiaomi send's answer means for each regid (docs/vendors.md, Xiaomi).
@Suite("Xiaomi answers")
struct XiaomiAnswerTests {
    private func verdicts(_ status: Int, _ body: String, _ tokens: [String] = ["r1", "r2", "r3"]) -> [Verdict] {
        VendorFixture.verdicts(XiaomiClient.outcomes(VendorFixture.answer(status, body), tokens: tokens, vendor: .mi))
    }

    private func verdicts(_ body: String, _ tokens: [String] = ["r1", "r2", "r3"]) -> [Verdict] {
        verdicts(200, body, tokens)
    }

    @Test("The bad_regids are invalid, the others delivered")
    func badRegids() {
        let body = #"{"result":"ok","code":0,"data":{"id":"m1","bad_regids":"r2,r3"}}"#
        #expect(verdicts(body) == [.success, .invalidToken, .invalidToken])
    }

    @Test("An answer without bad_regids delivers every regid with the message id")
    func allDelivered() {
        let body = #"{"result":"ok","code":0,"data":{"id":"m1"}}"#
        #expect(verdicts(body) == [.success, .success, .success])
        #expect(XiaomiClient.outcomes(VendorFixture.answer(body), tokens: ["r1"], vendor: .mi) == [.success(id: "m1")])
    }

    @Test("200001 is the daily quota, VendorQuota")
    func quota() {
        let body = #"{"result":"error","code":200001,"description":"quota exceeded"}"#
        #expect(verdicts(body, ["r1", "r2"]) == [.quota, .quota])
        let outcome = XiaomiClient.outcomes(VendorFixture.answer(body), tokens: ["r1"], vendor: .mi)[0]
        #expect(outcome.reason?.description == "VendorQuota")
    }

    @Test("10002, 10003, 10027 and 10037 are retried", arguments: [10002, 10003, 10027, 10037])
    func retry(code: Int) {
        #expect(verdicts(#"{"result":"error","code":\#(code),"description":"busy"}"#, ["r1"]) == [.retry])
    }

    @Test("Other codes are permanent, with the code (21301, the refused app secret, too)")
    func permanent() {
        #expect(verdicts(#"{"result":"error","code":21301,"description":"认证失败"}"#, ["r1"]) == [.permanent("21301")])
        #expect(verdicts(#"{"result":"error","code":10017,"description":"x"}"#, ["r1"]) == [.permanent("10017")])
    }

    @Test("mi-intl devices' reasons name mi-intl")
    func global() {
        let body = #"{"result":"ok","code":0,"data":{"id":"m1","bad_regids":"r1"}}"#
        let outcomes = XiaomiClient.outcomes(VendorFixture.answer(body), tokens: ["r1"], vendor: .miIntl)
        #expect(VendorFixture.vendors(outcomes) == [.miIntl])
    }
}
