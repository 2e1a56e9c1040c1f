import Curl
import Foundation
import HTTP2TestSupport
import HTTPTypes
import NGHTTP2
import TestEnvironment
import Testing

@testable import Delivery

@Suite struct APNsClientRequestTests {
    @Test func requestCarriesApplesHeadersAndABearerJWT() async throws {
        let clock = TestClock()
        let client = try APNsClient(
            configuration: APNsConfiguration(
                endpoint: APNsConfiguration.development,
                authentication: .token(keyFile: TestKeys.apnsKeyFile, keyId: "KEY1234567", teamId: "TEAM123456"),
                topic: "com.example.app"
            ),
            clock: clock.serviceClock
        )
        let id = UUID()
        let notification = APNsNotification(
            deviceToken: "abcd", payload: Array(#"{"aps":{"content-available":1}}"#.utf8), pushType: .background,
            expiration: 0, collapseId: "c1", apnsId: id
        )
        let request = client.makeRequest(notification, apnsId: id.uuidString, bearer: "JWT")
        await client.shutdown()
        #expect(request.method == .post)
        #expect(request.url == "https://api.sandbox.push.apple.com/3/device/abcd")
        #expect(request.headers[HTTPField.Name("authorization")!] == "bearer JWT")
        #expect(request.headers[HTTPField.Name("apns-topic")!] == "com.example.app")
        #expect(request.headers[HTTPField.Name("apns-push-type")!] == "background")
        #expect(request.headers[HTTPField.Name("apns-priority")!] == "5")
        #expect(request.headers[HTTPField.Name("apns-expiration")!] == "0")
        #expect(request.headers[HTTPField.Name("apns-id")!] == id.uuidString)
        #expect(request.headers[HTTPField.Name("apns-collapse-id")!] == "c1")
        #expect(request.body == notification.payload)
    }

    @Test func optionalHeadersAreLeftOut() async throws {
        let client = try APNsClient(
            configuration: APNsConfiguration(
                endpoint: APNsConfiguration.production,
                authentication: .certificate(
                    certificateFile: TestCertificates.shared.clientCertificate,
                    keyFile: TestCertificates.shared.clientKey, keyPassword: nil),
                topic: "com.example.app"
            )
        )
        let notification = APNsNotification(deviceToken: "ff", payload: Array("{}".utf8), topic: "com.example.other")
        let request = client.makeRequest(notification, apnsId: "id", bearer: nil)
        await client.shutdown()
        #expect(request.headers[HTTPField.Name("authorization")!] == nil)
        #expect(request.headers[HTTPField.Name("apns-expiration")!] == nil)
        #expect(request.headers[HTTPField.Name("apns-collapse-id")!] == nil)
        #expect(request.headers[HTTPField.Name("apns-priority")!] == "10")
        #expect(request.headers[HTTPField.Name("apns-topic")!] == "com.example.other")
    }

    @Test func unreadableKeyFailsAtSetUp() {
        #expect(throws: DeliverySetupError.self) {
            try APNsClient(
                configuration: APNsConfiguration(
                    endpoint: APNsConfiguration.production,
                    authentication: .token(keyFile: "/missing.p8", keyId: "K", teamId: "T"), topic: "t"
                )
            )
        }
    }

    /// nghttp2 loads the certificate when the client is made, so a wrong path is a set-up error, not a failure
    /// of every later send.
    @Test func anUnreadableCertificateFailsAtSetUpOnNghttp2() {
        let configuration = APNsConfiguration(
            endpoint: APNsConfiguration.production,
            authentication: .certificate(certificateFile: "/missing-certificate.pem", keyFile: nil, keyPassword: nil),
            topic: "t", transport: .nghttp2)
        do {
            _ = try APNsClient(configuration: configuration)
            Issue.record("a missing certificate was accepted")
        } catch {
            guard case .http(.nghttp2(.tls(let reason))) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(reason.contains("/missing-certificate.pem"))
        }
    }
}
