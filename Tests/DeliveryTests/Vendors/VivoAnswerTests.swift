import Testing

@testable import Delivery

/// What vivo's answers mean per device (docs/vendors.md, vivo): `/message/send` for one device, the list push
/// for several.
@Suite("vivo answers")
struct VivoAnswerTests {
    private func single(_ status: Int, _ body: String) -> [Verdict] {
        VendorFixture.verdicts(VivoClient.single(VendorFixture.answer(status, body)))
    }

    private func single(_ body: String) -> [Verdict] {
        single(200, body)
    }

    private func listed(_ body: String, _ tokens: [String] = ["a", "b", "c"]) -> [Verdict] {
        VendorFixture.verdicts(VivoClient.listed(VendorFixture.answer(body), tokens: tokens))
    }

    @Test("Result 0 delivers the one device")
    func singleSuccess() {
        #expect(single(#"{"result":0,"desc":"请求成功","taskId":"t1"}"#) == [.success])
        #expect(VivoClient.single(VendorFixture.answer(#"{"result":0,"taskId":"t1"}"#)) == [.success(id: "t1")])
    }

    @Test("10302 makes the one device's regId invalid")
    func singleInvalid() {
        #expect(single(#"{"result":10302,"desc":"regId不合法"}"#) == [.invalidToken])
    }

    @Test("A list push's invalidUsers are invalid, the others delivered")
    func listInvalidUsers() {
        let body = #"{"result":0,"desc":"请求成功","invalidUsers":[{"status":1,"userid":"b"}]}"#
        #expect(listed(body) == [.success, .invalidToken, .success])
    }

    @Test("10000 is an invalid auth token: a new one, once")
    func auth() {
        #expect(single(#"{"result":10000,"desc":"权限认证失败"}"#) == [.auth])
        #expect(listed(#"{"result":10000,"desc":"权限认证失败"}"#, ["a", "b"]) == [.auth, .auth])
    }

    @Test("10070 is the daily quota, VendorQuota")
    func quota() {
        #expect(single(#"{"result":10070,"desc":"发送总量超过限制"}"#) == [.quota])
        #expect(listed(#"{"result":10070,"desc":"发送总量超过限制"}"#, ["a", "b"]) == [.quota, .quota])
        let outcome = VivoClient.single(VendorFixture.answer(#"{"result":10070}"#))[0]
        #expect(outcome.reason?.description == "VendorQuota")
    }

    @Test("10040 is retried")
    func retry() {
        #expect(single(#"{"result":10040,"desc":"系统繁忙"}"#) == [.retry])
        #expect(listed(#"{"result":10040}"#, ["a", "b"]) == [.retry, .retry])
    }

    @Test("Other results are permanent, with the code")
    func permanent() {
        #expect(single(#"{"result":10050,"desc":"alias不合法"}"#) == [.permanent("10050")])
        #expect(listed(#"{"result":10101,"desc":"x"}"#, ["a", "b"]) == [.permanent("10101"), .permanent("10101")])
    }

    @Test("The reasons name vivo")
    func vendor() {
        #expect(VendorFixture.vendors(VivoClient.single(VendorFixture.answer(#"{"result":10050}"#))) == [.vivo])
    }
}
