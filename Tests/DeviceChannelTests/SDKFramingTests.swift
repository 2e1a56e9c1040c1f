import Foundation
import Testing

@testable import DeviceChannel
@testable import Ledger
@testable import PushCore

/// The LeanCloud SDK dialect's codec against the frames of research/lc-push-channel.md §7, written from the SDK's
/// schema independently of ours: a renumbered field or a wrong wire type changes these bytes.
@Suite struct SDKFramingTests {
    static let loginHex =
        "08081a0b594f55525f4150505f494432206131623263336434653566363037313832393361346235633664376538663930"
        + "a2062c0a2a080112192a175869616f6d692f5265646d692f4d323031324b313141431a090a0352454c120233332000"
    static let loggedinHex = "080f4000aa07020800"
    static let dataHex =
        "0809aa065d0a0a35663165306339613262124f0a4d7b22616c657274223a2248656c6c6f222c227469746c65223a224869222c225f"
        + "6368616e6e656c223a227075626c6963222c225f6e6f74696669636174696f6e4368616e6e656c223a2231227d"
    static let ackHex =
        "080332206131623263336434653566363037313832393361346235633664376538663930ca060c520a35663165306339613262"
    static let installationId = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    static func binary(_ frame: OutboundFrame) -> [UInt8]? {
        if case .binary(let bytes) = frame { bytes } else { nil }
    }

    @Test func decodesTheAndroidLogin() throws {
        let command = try SDKFraming.binary.decode(Self.bytes(Self.loginHex), text: false)
        #expect(SDKCommand(command) == .login(appId: "YOUR_APP_ID", installationId: Self.installationId))
        let system = command.loginMessage.systemInfo
        #expect(system.deviceType == .android)
        #expect(system.osVersion.build == "Xiaomi/Redmi/M2012K11AC")
        #expect(system.androidVersion.apiLevel == "33" && system.androidVersion.codename == "REL")
        #expect(system.hasIsEmulator && !system.isEmulator)
    }

    @Test func decodesTheAndroidAck() throws {
        let command = try SDKFraming.binary.decode(Self.bytes(Self.ackHex), text: false)
        #expect(SDKCommand(command) == .ack(ids: ["5f1e0c9a2b"]))
        #expect(command.installationID == Self.installationId)
    }

    @Test func writesLoggedinAndDataAsTheSDKReadsThem() {
        #expect(Self.binary(SDKFraming.binary.encode(SDKReply.loggedin())) == Self.bytes(Self.loggedinHex))
        let json = #"{"alert":"Hello","title":"Hi","_channel":"public","_notificationChannel":"1"}"#
        let data = SDKReply.data(id: "5f1e0c9a2b", json: json, offline: false)
        #expect(Self.binary(SDKFraming.binary.encode(data)) == Self.bytes(Self.dataHex))
        // Offline messages carry field 3 of DataCommand, true: the frame grows by its two bytes (and the
        // length of dataMessage by two).
        let offline = Self.binary(SDKFraming.binary.encode(SDKReply.data(id: "5f1e0c9a2b", json: json, offline: true)))
        #expect(offline?.suffix(2) == [0x18, 0x01])
        #expect(offline?.count == Self.bytes(Self.dataHex).count + 2)
    }

    @Test func base64FramesCarryTheSameBytesAsText() throws {
        let frame = SDKFraming.base64.encode(SDKReply.loggedin())
        guard case .text(let text) = frame else {
            Issue.record("base64 framing writes text frames, not \(frame)")
            return
        }
        #expect(Data(base64Encoded: text).map(Array.init) == Self.bytes(Self.loggedinHex))
        let login = Data(Self.bytes(Self.loginHex)).base64EncodedString()
        let decoded = try SDKFraming.base64.decode(Array(login.utf8), text: true)
        #expect(SDKCommand(decoded) == .login(appId: "YOUR_APP_ID", installationId: Self.installationId))
    }

    @Test func badInputIsAnErrorNotACrash() {
        #expect(throws: SDKFrameError.notACommand) {
            try SDKFraming.binary.decode([0xff, 0xff, 0xff, 0xff], text: false)
        }
        // A frame cut short in the middle of the login's appId.
        #expect(throws: SDKFrameError.notACommand) {
            try SDKFraming.binary.decode(Array(Self.bytes(Self.loginHex).prefix(8)), text: false)
        }
        #expect(throws: SDKFrameError.notBase64) { try SDKFraming.base64.decode(Array("not base64!".utf8), text: true) }
        #expect(throws: SDKFrameError.wrongFrameType(expected: "binary")) {
            try SDKFraming.binary.decode(Self.bytes(Self.loggedinHex), text: true)
        }
        #expect(throws: SDKFrameError.wrongFrameType(expected: "text")) {
            try SDKFraming.base64.decode(Array("CA8=".utf8), text: false)
        }
        // An error command without its required reason is no command.
        #expect(throws: SDKFrameError.notACommand) {
            try SDKFraming.binary.decode([0x08, 0x07, 0xba, 0x06, 0x02, 0x08, 0x01], text: false)
        }
    }

    @Test func unknownAndIMCommandsAreUnsupportedAndEchoKeepsI() throws {
        // cmd=direct (2), i=7; and an empty frame, which reads as the default cmd, session.
        let direct = try SDKFraming.binary.decode([0x08, 0x02, 0x28, 0x07], text: false)
        #expect(SDKCommand(direct) == .unsupported(name: "direct", i: 7))
        #expect(SDKCommand(try SDKFraming.binary.decode([], text: false)) == .unsupported(name: "session", i: nil))
        // cmd=99, not in the schema: kept as an unknown field.
        #expect(
            SDKCommand(try SDKFraming.binary.decode([0x08, 0x63], text: false)) == .unsupported(name: "session", i: nil)
        )
        let echo = try SDKFraming.binary.decode([0x08, 0x0e, 0x28, 0x05], text: false)
        #expect(SDKCommand(echo) == .echo(i: 5))
        #expect(Self.binary(SDKFraming.binary.encode(SDKReply.echo(i: 5))) == [0x08, 0x0e, 0x28, 0x05])
    }

    @Test func theSubprotocolChoosesTheFraming() {
        #expect(SDKFraming.requested(in: "lc.protobuf2.3") == .binary)
        #expect(SDKFraming.requested(in: "chat, lc.proto2base64.3") == .base64)
        #expect(SDKFraming.requested(in: "lc.protobuf2.1") == nil)
        #expect(SDKFraming.requested(in: nil) == nil)
    }

    @Test func sdkContentCarriesTheExpirationTheSDKParses() throws {
        let message = ChannelMessage(
            id: 1, seq: 3, appId: "a", installationId: Self.installationId, objectId: "o", pushId: "p",
            platform: "android", data: ["alert": "Hello", "_nid": "p", "_channel": "public"],
            expireAt: Date(timeIntervalSince1970: 1_767_225_600.5))
        let content = try JSON.parse(ChannelDialect.sdkContent(message))
        #expect(
            content == [
                "alert": "Hello", "_nid": "p", "_channel": "public", "_expiration_time": "2026-01-01T00:00:00.500Z",
            ])
        guard case .binary(let bytes) = ChannelDialect.sdk(.binary).frame(for: message, offline: true) else {
            Issue.record("the protobuf dialect writes binary frames")
            return
        }
        let command = try SDKFraming.binary.decode(bytes, text: false)
        #expect(command.cmd == .data && command.dataMessage.ids == ["3"] && command.dataMessage.offline)
        #expect(command.dataMessage.msg.map(\.data) == [ChannelDialect.sdkContent(message)])
    }
}
