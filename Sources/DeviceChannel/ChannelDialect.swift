import Foundation
import Ledger
import PushCore

/// The wire format of one device connection (SPEC §12.2, §12.4). Every dialect reaches the same hub, message
/// store and presence; only the frames differ, and they are made here.
enum ChannelDialect: Sendable, Equatable {
    /// PushLedger's JSON text frames; the device is authenticated by its channel token at the upgrade.
    case json
    /// The LeanCloud SDK's protobuf `GenericCommand`s; the device logs in with a `login` command.
    case sdk(SDKFraming)

    /// What a device hears when its session starts, before any message: the JSON dialect's `welcome` (and
    /// `dropped`, when messages over its cap were dropped), the SDK's `loggedin`. The SDK has no command for
    /// dropped messages, so `dropped` is the JSON dialect's only.
    func greeting(installationId: String, pingInterval: Duration, dropped: Int64) -> [OutboundFrame] {
        switch self {
        case .json:
            let welcome: JSON = [
                "type": "welcome", "installationId": .string(installationId),
                "pingInterval": .int(Int64(pingInterval.components.seconds)),
            ]
            let notice: [JSON] = dropped > 0 ? [["type": "dropped", "count": .int(dropped)]] : []
            return ([welcome] + notice).map { .text($0.encoded()) }
        case .sdk(let framing):
            return [framing.encode(SDKReply.loggedin())]
        }
    }

    /// Whether the session should ask the store for dropped-message counts when it starts: only a dialect
    /// that can tell the device takes them, so they wait for its next JSON connection otherwise.
    var tellsDrops: Bool { self == .json }

    /// A stored message as the device reads it. `offline`: read from the store (a backlog) rather than
    /// announced while the device was connected.
    func frame(for message: ChannelMessage, offline: Bool) -> OutboundFrame {
        switch self {
        case .json:
            return .text(message.json.encoded())
        case .sdk(let framing):
            return framing.encode(
                SDKReply.data(id: String(message.seq), json: Self.sdkContent(message), offline: offline))
        }
    }

    /// The push JSON the Android SDK reads (research §4): the stored content (with `_nid`, and `_channel` when
    /// the push named channels), plus `_expiration_time`, after which the SDK drops the message, set to the
    /// time this server stops delivering it, so device and server agree.
    static func sdkContent(_ message: ChannelMessage) -> String {
        var content = message.data.objectValue ?? [:]
        content["_expiration_time"] = .string(LeanDate.format(message.expireAt))
        return JSON.object(content).encoded()
    }

    /// A device's text frame in the JSON dialect as the sequence numbers it acknowledges:
    /// `{"type":"ack","id":"…"}` or `{"type":"ack","ids":[…]}`; nil for anything else, which is ignored
    /// (future message types must not break older servers).
    static func jsonAcks(_ text: String) -> [Int64]? {
        guard let frame = try? JSON.parse(text), frame["type"]?.stringValue == "ack" else { return nil }
        var seqs: [Int64] = []
        for value in [frame["id"]].compactMap({ $0 }) + (frame["ids"]?.arrayValue ?? []) {
            if let seq = value.stringValue.flatMap(Int64.init) ?? value.intValue { seqs.append(seq) }
        }
        return seqs
    }
}
