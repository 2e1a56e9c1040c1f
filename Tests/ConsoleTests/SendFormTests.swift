import PushCore
import Testing

@testable import Console

@Suite struct SendFormTests {
    @Test func channelsAndCommonFieldsMakeAPushBody() throws {
        let form = SendForm(FormBody("audience=channels&channels=news%2C+sports&alert=Hi&badge=Increment&prod=dev"))
        let (body, devices) = try form.body()
        #expect(!devices)
        #expect(body["channels"] == ["news", "sports"])
        #expect(body["data"] == ["alert": "Hi", "badge": "Increment"])
        #expect(body["prod"] == "dev")
    }

    @Test func aDeviceListGoesToPushDevicesOnePerLine() throws {
        let form = SendForm(FormBody("audience=devices&device_type=android&device_ids=a%0D%0Ab%0A%0A&alert=x"))
        let (body, devices) = try form.body()
        #expect(devices)
        #expect(body["device_ids"] == ["a", "b"])
        #expect(body["device_type"] == "android")
    }

    @Test func badJSONAndBadNumbersAreTheRequestsFaultWithTheirCodes() {
        for (query, code) in [
            ("audience=where&where=%7Bnope&alert=x", 107), ("audience=where&where=%5B1%5D&alert=x", 107),
            ("custom=%7B%7D%7D", 107), ("badge=lots", 1), ("expiration_interval=-5&alert=x", 1),
            ("audience=everyone", 1),
        ] {
            let error = #expect(throws: LeanError.self) { try SendForm(FormBody(query)).body() }
            #expect(error?.code.rawValue == code, "\(query)")
        }
    }

    @Test func aPushTimeFromTheFormIsReadAsUTC() throws {
        let (body, _) = try SendForm(FormBody("alert=x&push_time=2030-01-02T03%3A04")).body()
        #expect(body["push_time"] == "2030-01-02T03:04:00.000Z")
    }
}
