import Foundation
import Testing

@testable import Console

@Suite struct ConsoleSessionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSignedCookieVerifiesWithItsMasterKeyUntilItExpires() {
        let session = ConsoleSession.start(appId: "app-1", now: now)
        let cookie = session.cookieValue(masterKey: "m1")
        #expect(ConsoleSession.claimedAppId(cookie) == "app-1")
        #expect(ConsoleSession.verify(cookie, masterKey: "m1", now: now) == session)
        #expect(session.expires == Int64(now.timeIntervalSince1970) + ConsoleSession.lifetime)
        let later = now.addingTimeInterval(TimeInterval(ConsoleSession.lifetime))
        #expect(ConsoleSession.verify(cookie, masterKey: "m1", now: later) == nil)
    }

    @Test func anotherMasterKeyOrATamperedCookieIsRefused() {
        let cookie = ConsoleSession.start(appId: "app-1", now: now).cookieValue(masterKey: "m1")
        // A changed master key ends the session.
        #expect(ConsoleSession.verify(cookie, masterKey: "m2", now: now) == nil)
        let parts = cookie.split(separator: ".").map(String.init)
        // A longer life or another app under the same signature.
        let extended = [parts[0], String(Int64(parts[1])! + 86_400), parts[2]].joined(separator: ".")
        #expect(ConsoleSession.verify(extended, masterKey: "m1", now: now) == nil)
        let otherApp = [Base64URL.encode(Data("app-2".utf8)), parts[1], parts[2]].joined(separator: ".")
        #expect(ConsoleSession.verify(otherApp, masterKey: "m1", now: now) == nil)
        for junk in ["", "a.b", "a.b.c.d", "!!.1.00", cookie + "0"] {
            #expect(ConsoleSession.verify(junk, masterKey: "m1", now: now) == nil)
        }
    }

    @Test func theCookieValueHoldsOnlyCookieSafeCharacters() {
        let cookie = ConsoleSession.start(appId: "app with spaces;=,\"é", now: now).cookieValue(masterKey: "k")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        #expect(cookie.unicodeScalars.allSatisfy { $0.isASCII && allowed.contains($0) })
        #expect(ConsoleSession.claimedAppId(cookie) == "app with spaces;=,\"é")
    }

    @Test func theCSRFTokenBelongsToOneSession() {
        let session = ConsoleSession.start(appId: "app-1", now: now)
        let token = session.csrfToken(masterKey: "m1")
        #expect(session.acceptsCSRF(token, masterKey: "m1"))
        #expect(!session.acceptsCSRF(nil, masterKey: "m1"))
        #expect(!session.acceptsCSRF("", masterKey: "m1"))
        let flipped = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
        #expect(!session.acceptsCSRF(flipped, masterKey: "m1"))
        // Another session (a later login) or another app's session does not lend its token.
        let later = ConsoleSession.start(appId: "app-1", now: now.addingTimeInterval(5))
        #expect(!later.acceptsCSRF(token, masterKey: "m1"))
        let other = ConsoleSession(appId: "app-2", expires: session.expires)
        #expect(!other.acceptsCSRF(token, masterKey: "m1"))
        #expect(!session.acceptsCSRF(token, masterKey: "m2"))
        // The token is not the session cookie's signature.
        #expect(!session.cookieValue(masterKey: "m1").hasSuffix(token))
    }
}
