import Curl
import PushCore

/// What an HMS send's answer means for each of its tokens (docs/vendors.md).
enum HMSAnswer {
    static func outcomes(_ answer: Result<CurlResponse, CurlError>, tokens: [String]) -> [DeliveryOutcome] {
        let reply = VendorReply(answer, vendor: .hms, devices: tokens.count)
        guard let response = reply.response else { return reply.unanswered }
        let body = reply.body, code = reply.code
        if response.status == 401 || code == "80200001" || code == "80200003" { return reply.all(.auth) }
        if response.status == 502 || response.status == 503 || response.status == 500 || code == "81000001" {
            return reply.all(.retry)
        }
        switch code {
        case "80000000":
            return tokens.map { _ in .success(id: body?["requestId"]?.stringValue ?? "") }
        case "80100000":
            // Partial success: `msg` is a JSON string naming the illegal tokens; the others were taken.
            let detail = (body?["msg"]?.stringValue).flatMap { VendorText.parse(Array($0.utf8)) }
            let illegal = Set((detail?["illegal_tokens"]?.arrayValue ?? []).compactMap(\.stringValue))
            return tokens.map {
                illegal.contains($0)
                    ? VendorReason(.hms, "80100000", .invalidToken).outcome
                    : .success(id: body?["requestId"]?.stringValue ?? "")
            }
        case "80300007" where tokens.count == 1:
            return reply.all(.invalidToken)
        default:
            return reply.all(.permanent)
        }
    }

    /// "All the tokens are invalid" (80300007).
    static func allInvalid(_ answer: Result<CurlResponse, CurlError>) -> Bool {
        guard case .success(let response) = answer else { return false }
        return VendorText.code(VendorHTTP.json(response)?["code"]) == "80300007"
    }
}
