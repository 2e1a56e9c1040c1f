import ExtrasBase64
import Foundation
import SwiftProtobuf

/// How the LeanCloud SDK dialect's commands travel (SPEC §12.4; research/lc-push-channel.md §2): one serialized
/// `GenericCommand` per WebSocket message, as it is in binary frames (`lc.protobuf2.3`, the Android SDK's) or
/// base64 in text frames (`lc.proto2base64.3`, the JavaScript SDK's). The raw value is the subprotocol, which
/// the handshake's answer must echo: the Android SDK aborts a handshake without it.
public enum SDKFraming: String, Sendable, CaseIterable {
    case binary = "lc.protobuf2.3"
    case base64 = "lc.proto2base64.3"

    /// The framing of the first SDK subprotocol in a `Sec-WebSocket-Protocol` header (a comma-separated list),
    /// nil when it names none: the connection then speaks the JSON dialect.
    public static func requested(in header: String?) -> SDKFraming? {
        guard let header else { return nil }
        return header.split(separator: ",").lazy
            .compactMap { SDKFraming(rawValue: $0.trimmingCharacters(in: .whitespaces)) }.first
    }

    func encode(_ command: LCGenericCommand) -> OutboundFrame {
        // Serializing fails only for a message missing a required field, which the builders always set.
        let bytes = (try? command.serializedBytes() as [UInt8]) ?? []
        switch self {
        case .binary: return .binary(bytes)
        case .base64: return .text(Base64.encodeToString(bytes: bytes))
        }
    }

    /// One WebSocket message's payload as a command; `text` says whether it came in a text frame.
    func decode(_ payload: [UInt8], text: Bool) throws(SDKFrameError) -> LCGenericCommand {
        let bytes: [UInt8]
        switch (self, text) {
        case (.binary, false):
            bytes = payload
        case (.base64, true):
            guard let decoded = try? Base64.decode(bytes: payload) else { throw .notBase64 }
            bytes = decoded
        case (.binary, true), (.base64, false):
            throw .wrongFrameType(expected: self == .binary ? "binary" : "text")
        }
        do {
            return try LCGenericCommand(serializedBytes: bytes)
        } catch {
            throw .notACommand
        }
    }
}

/// Why a device's message is not a command of its dialect.
enum SDKFrameError: Error, Equatable {
    case wrongFrameType(expected: String)
    case notBase64
    /// Not a serialized `GenericCommand` (or one lacking a required field).
    case notACommand

    var reason: String {
        switch self {
        case .wrongFrameType(let expected): "this subprotocol takes \(expected) frames"
        case .notBase64: "not base64"
        case .notACommand: "not a GenericCommand"
        }
    }
}
