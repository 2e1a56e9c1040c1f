import CNGHTTP2Loop
import HTTPTypes

/// Request header lines built into nghttp2's name/value form once and shared by many requests: a fan-out's
/// requests all carry the same provider token, topic, type, priority and expiry, and building those lines per
/// request would be pure overhead.
///
/// Immutable once made, so any thread may use it; each batch that uses it keeps it alive.
public final class NGHTTP2HeaderBlock: @unchecked Sendable {
    let block: OpaquePointer
    /// Lines kept (names lower-cased; lines HTTP/2 forbids are dropped, see `NGHTTP2Request`).
    public let count: Int

    public init(_ fields: HTTPFields) {
        guard let block = pl_h2_header_block_create() else { fatalError("out of memory") }
        for field in fields {
            var name = field.name.canonicalName
            var value = field.value
            name.withUTF8 { name in
                value.withUTF8 { value in
                    pl_h2_header_block_add(block, name.baseAddress, name.count, value.baseAddress, value.count)
                }
            }
        }
        self.block = block
        count = pl_h2_header_block_count(block)
    }

    deinit { pl_h2_header_block_release(block) }
}
