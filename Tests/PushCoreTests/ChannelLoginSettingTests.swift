import Testing

@testable import PushCore

/// `channel.login` (SPEC §12.4) takes one of its two values; anything else is refused when it is set.
@Suite struct ChannelLoginSettingTests {
    @Test func takesTokenOrInstallationId() throws {
        #expect(try AppSettings.parse(key: "channel.login", value: "token") == "token")
        #expect(try AppSettings.parse(key: "channel.login", value: "installation-id") == "installation-id")
        #expect(AppSettings.value("channel.login", in: [:]) == "token")
    }

    @Test func refusesOtherValues() {
        #expect(throws: LeanError.self) { try AppSettings.parse(key: "channel.login", value: "installationId") }
        #expect(throws: LeanError.self) { try AppSettings.parse(key: "channel.login", value: "TOKEN") }
    }
}
