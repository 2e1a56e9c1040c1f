import Curl
import HTTPTypes

/// A provider's HTTP answer as the sending library gave it; headers are parsed only when read (a delivered push's
/// never are).
struct ProviderResponse: Sendable {
    enum Received: Sendable {
        case libcurl(CurlResponse)
    }

    let received: Received

    var status: Int {
        switch received {
        case .libcurl(let response): response.status
        }
    }

    var headers: HTTPFields {
        switch received {
        case .libcurl(let response): response.headers
        }
    }

    var body: [UInt8] {
        switch received {
        case .libcurl(let response): response.body
        }
    }
}
