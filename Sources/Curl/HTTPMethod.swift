/// An HTTP request method. The common ones are spelled out; anything else goes through `custom`.
public enum HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    case get
    case head
    case post
    case put
    case patch
    case delete
    case custom(String)

    public var description: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .custom(let name): name
        }
    }
}
