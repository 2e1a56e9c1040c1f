import DeviceChannel
import Ledger
import TestEnvironment
import TestSupport
import Testing

/// The own channel's login tokens, made and checked against apps as the ledger stores them.
@Suite("Channel tokens", .requiresPostgreSQL)
struct ChannelTokenTests {
    @Test("channel tokens: one per app and installation, verified only as issued, changed by channel.secret")
    func tokens() async throws {
        let db = try await TestDatabase.make(migrate: true)
        let a = try await db.ledger.apps.create(name: "a", appId: "tokA")
        let b = try await db.ledger.apps.create(name: "b", appId: "tokB")
        let token = ChannelToken.make(app: a, installationId: "i1")
        #expect(ChannelToken.verify(token, app: a, installationId: "i1"))
        #expect(!ChannelToken.verify(token, app: a, installationId: "i2"))
        #expect(!ChannelToken.verify(token, app: b, installationId: "i1"))
        #expect(!ChannelToken.verify(String(token.dropLast()), app: a, installationId: "i1"))
        #expect(token.count == 43, "HMAC-SHA256 in unpadded base64url")
        let rekeyed = try await db.ledger.apps.set(appId: a.appId, [("channel.secret", "s3cret")])
        #expect(!ChannelToken.verify(token, app: rekeyed, installationId: "i1"))
        #expect(
            ChannelToken.verify(
                ChannelToken.make(app: rekeyed, installationId: "i1"), app: rekeyed, installationId: "i1"))
    }
}
