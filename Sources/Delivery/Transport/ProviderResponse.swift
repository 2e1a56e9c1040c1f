import Curl
import HTTPTypes
import NGHTTP2

/// A provider's HTTP answer as the sending library gave it; headers are parsed only when read (a delivered push's
/// never are).
struct ProviderResponse: Sendable {
    enum Received: Sendable {
        case nghttp2(NGHTTP2Response)
        case libcurl(CurlResponse)
    }

    let received: Received

    var status: Int {
        switch received {
        case .nghttp2(let response): response.status
        case .libcurl(let response): response.status
        }
    }

    var headers: HTTPFields {
        switch received {
        case .nghttp2(let response): response.headers
        case .libcurl(let response): response.headers
        }
    }

    var body: [UInt8] {
        switch received {
        case .nghttp2(let response): response.body
        case .libcurl(let response): response.body
        }
    }
}
