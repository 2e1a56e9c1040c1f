/// How an ``InjectionRule`` recognises the device tokens it applies to.
public enum TokenMatch: Sendable, Hashable {
    case prefix(String)
    case substring(String)

    func matches(_ token: Substring) -> Bool {
        switch self {
        case .prefix(let prefix): return token.utf8.starts(with: prefix.utf8)
        case .substring(let needle): return token.contains(needle)
        }
    }
}
