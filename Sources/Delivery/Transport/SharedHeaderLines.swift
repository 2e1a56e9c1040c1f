import Curl
import HTTPTypes
import NGHTTP2

/// Header lines many requests share (a chunk's provider token, topic, type…), built once in the sending
/// library's own form (`ProviderTransport.sharedLines`): per request they would cost a string and a node each.
final class SharedHeaderLines: Sendable {
    enum Built: Sendable {
        case nghttp2(NGHTTP2HeaderBlock)
        case libcurl(CurlHeaderBlock)
    }

    let built: Built

    init(_ built: Built) { self.built = built }

    var curlBlock: CurlHeaderBlock? {
        if case .libcurl(let block) = built { block } else { nil }
    }

    var nghttp2Block: NGHTTP2HeaderBlock? {
        if case .nghttp2(let block) = built { block } else { nil }
    }
}
