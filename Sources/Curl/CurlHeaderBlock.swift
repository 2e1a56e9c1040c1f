import CCurl
import HTTPTypes

/// Request header lines built into libcurl's list once and shared by many requests: every notification of
/// a batch carries the same provider token, topic, type, priority, expiry and collapse id, so building those
/// lines per request (a Swift string and a `curl_slist` node each) was pure overhead in a large fan-out.
///
/// Immutable once made, so any driver thread may read it; libcurl only reads the list. A request that
/// uses it keeps it alive until its transfer is removed from the multi handle.
public final class CurlHeaderBlock: @unchecked Sendable {
    let list: UnsafeMutablePointer<curl_slist>?
    public let count: Int

    /// - Parameter hasBody: adds the empty `Expect:` that keeps HTTP/1.1 fallbacks from waiting for a
    ///   `100 Continue`, as the per-request headers of a request with a body get.
    public init(_ fields: HTTPFields, hasBody: Bool = true) {
        var list: UnsafeMutablePointer<curl_slist>?
        for field in fields { list = curl_slist_append(list, CurlHeaderBlock.line(field)) }
        if hasBody { list = curl_slist_append(list, "Expect:") }
        self.list = list
        count = fields.count + (hasBody ? 1 : 0)
    }

    deinit { curl_slist_free_all(list) }

    /// libcurl's spelling of one field: "name;" for an empty value, since "name:" would remove the header.
    static func line(_ field: HTTPField) -> String {
        field.value.isEmpty ? field.name.rawName + ";" : field.name.rawName + ": " + field.value
    }
}
