import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// The HTTP side every vendor client shares: one libcurl client per vendor profile (its CA, its hosts) and
/// the request shapes vendors take, JSON and form bodies.
struct VendorHTTP: Sendable {
    let client: CurlClient
    let timeout: Duration

    /// Vendors' APIs answer a list request in one response; few connections carry them.
    init(caFile: String?, logger: Logger?, timeout: Duration = .seconds(30)) throws(DeliverySetupError) {
        self.timeout = timeout
        (client, _) = try ProviderHTTPClient.make(
            shared: nil, tls: CurlTLSConfiguration(caFile: caFile), hostConnections: 2, totalConnections: 6,
            maxInFlight: 500, timeout: timeout, logger: logger)
    }

    func post(_ url: String, headers: HTTPFields, body: [UInt8]) async -> Result<CurlResponse, CurlError> {
        await client.send(all: [CurlRequest(method: .post, url: url, headers: headers, body: body, timeout: timeout)])[
            0]
    }

    func postJSON(_ url: String, _ json: JSON, headers: HTTPFields = [:]) async -> Result<CurlResponse, CurlError> {
        var fields = headers
        fields[.contentType] = "application/json;charset=utf-8"
        return await post(url, headers: fields, body: Array(json.encoded().utf8))
    }

    func postForm(
        _ url: String, _ form: [(name: String, value: String)], headers: HTTPFields = [:]
    ) async -> Result<CurlResponse, CurlError> {
        var fields = headers
        fields[.contentType] = "application/x-www-form-urlencoded;charset=UTF-8"
        return await post(url, headers: fields, body: Array(FormEncoding.encode(form).utf8))
    }

    /// The JSON body of a response, nil when it is not JSON.
    static func json(_ response: CurlResponse) -> JSON? { VendorText.parse(response.body) }

    func shutdown() async { await client.shutdown() }
}

/// A vendor's answer to one request of `devices` tokens, as every client's classification starts reading it.
struct VendorReply {
    let vendor: AndroidVendor
    let devices: Int
    /// nil when no answer came (`unanswered` is then every device's outcome).
    let response: CurlResponse?
    let body: JSON?
    /// The vendor's result code (the body's `code`), or `HTTP <status>` when it has none.
    let code: String
    let unanswered: [DeliveryOutcome]

    init(_ answer: Result<CurlResponse, CurlError>, vendor: AndroidVendor, devices: Int) {
        self.vendor = vendor
        self.devices = devices
        switch answer {
        case .success(let response):
            self.response = response
            body = VendorHTTP.json(response)
            code = VendorText.code(body?["code"]) ?? "HTTP \(response.status)"
            unanswered = []
        case .failure(let error):
            response = nil
            body = nil
            code = ""
            unanswered = .all(.transportFailure(error), devices)
        }
    }

    /// Every device of the request answered alike, in the vendor's code.
    func all(_ kind: VendorReason.Kind) -> [DeliveryOutcome] {
        .all(VendorReason(vendor, code, kind).outcome, devices)
    }
}

/// The outcome of every device of a request that got no usable answer.
extension Array where Element == DeliveryOutcome {
    static func all(_ outcome: DeliveryOutcome, _ count: Int) -> [DeliveryOutcome] {
        [DeliveryOutcome](repeating: outcome, count: count)
    }
}

extension Array where Element == DeliveryOutcome {
    /// Whether the vendor refused the access token the request carried: the client drops it, so the next
    /// attempt fetches another.
    var refusesAccessToken: Bool { contains { if case .expiredProviderToken = $0 { true } else { false } } }
}
