/// Why a push's content cannot go to a vendor's devices at all, found before anything is sent (SPEC §12.3).
public enum VendorRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `silent` (pass-through) push to a vendor without pass-through messages (OPPO, vivo, Meizu).
    case passThroughUnsupported
    /// A title, body or payload over the vendor's limit: never cut silently.
    case contentTooLong(String)

    public var description: String {
        switch self {
        case .passThroughUnsupported: "PassThroughUnsupported"
        case .contentTooLong: "ContentTooLong"
        }
    }
}
