/// Why a push's `data` cannot be sent: LeanCloud code 107 when its structure is not the expected JSON objects,
/// code 1 for a bad value or a payload over the provider's size limit.
public struct PushDataError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// `data`, or a per-platform part of it, is not a JSON object.
        case malformed
        /// A field has a value the provider cannot take.
        case invalidValue
        /// The encoded payload is larger than the provider accepts.
        case payloadTooLarge(size: Int, limit: Int)
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var code: LeanError.Code {
        if case .malformed = kind { return .malformedJSON }
        return .invalidParameter
    }

    public var description: String { "\(code): \(message)" }

    static func malformed(_ message: String) -> PushDataError { PushDataError(.malformed, message) }
    static func invalid(_ message: String) -> PushDataError { PushDataError(.invalidValue, message) }
}
