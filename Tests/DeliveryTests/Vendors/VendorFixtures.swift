import Curl
import PushCore

@testable import Delivery
@testable import Ledger

/// What an outcome means for a device, as docs/vendors.md says it: the expectation of the answer tests.
enum Verdict: Hashable, CustomStringConvertible {
    case success
    case invalidToken
    case retry
    case auth
    case quota
    /// Refused for good, with the vendor's code.
    case permanent(String)

    init(_ outcome: DeliveryOutcome) {
        switch outcome {
        case .success: self = .success
        case .invalidToken: self = .invalidToken
        case .retryable: self = .retry
        case .expiredProviderToken: self = .auth
        case .permanent(.vendor(let reason)) where reason.kind == .quota: self = .quota
        case .permanent(.vendor(let reason)): self = .permanent(reason.code)
        case .permanent(let reason): self = .permanent(reason.description)
        }
    }

    var description: String {
        switch self {
        case .success: "success"
        case .invalidToken: "invalidToken"
        case .retry: "retry"
        case .auth: "auth"
        case .quota: "quota"
        case .permanent(let code): "permanent(\(code))"
        }
    }
}

enum VendorFixture {
    /// A vendor's HTTP answer.
    static func answer(_ status: Int, _ body: String) -> Result<CurlResponse, CurlError> {
        .success(CurlResponse(status: status, body: Array(body.utf8)))
    }

    /// A vendor's HTTP 200 answer.
    static func answer(_ body: String) -> Result<CurlResponse, CurlError> { answer(200, body) }

    static func verdicts(_ outcomes: [DeliveryOutcome]) -> [Verdict] { outcomes.map(Verdict.init) }

    /// The vendor names in the reasons of the failed outcomes.
    static func vendors(_ outcomes: [DeliveryOutcome]) -> [AndroidVendor] {
        outcomes.compactMap { if case .vendor(let reason)? = $0.reason { reason.vendor } else { nil } }
    }

    /// A profile's settings as the fan-out reads them from an app's settings (`ProviderRegistry`).
    static func settings(_ vendorKey: String, profile: String? = nil, _ values: [String: String]) -> VendorSettings {
        let app = App(
            appId: "app1", name: "Demo", appKey: "key", masterKey: "master",
            settings: values.mapValues { .string($0) })
        return VendorSettings(app: app, vendorKey: vendorKey, profile: profile)
    }

    static func content(
        _ json: [String: JSON], options: [String: JSON] = [:], id: String = "n1"
    ) throws -> VendorContent {
        try VendorContent(json, notificationId: id, options: VendorOptions(options))
    }

    /// The message a client builds, or the refusal.
    static func refusal(_ result: Result<VendorMessage, VendorRefusal>) -> VendorRefusal? {
        if case .failure(let refusal) = result { return refusal }
        return nil
    }

    static func text(_ count: Int, _ character: Character = "a") -> String {
        String(repeating: character, count: count)
    }
}

/// A client for one test, shut down after it.
func withClient<Client: VendorClient>(
    _ make: () throws -> Client, _ body: (Client) throws -> Void
) async throws {
    let client = try make()
    do {
        try body(client)
    } catch {
        await client.shutdown()
        throw error
    }
    await client.shutdown()
}
