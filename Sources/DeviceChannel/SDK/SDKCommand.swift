/// A device's command in the LeanCloud SDK dialect, decoded once at the edge (research/lc-push-channel.md
/// §3.1): the handler matches on these cases, never on raw `GenericCommand` fields.
enum SDKCommand: Equatable {
    /// `cmd=login` with the app and the installation, as the Android SDK sends it on open (no credential).
    case login(appId: String, installationId: String)
    /// `cmd=ack`: the ids of one `data` command, all at once.
    case ack(ids: [String])
    /// `cmd=echo`, the JavaScript SDK's keep-alive: answered with the same `i`.
    case echo(i: Int32?)
    /// Anything else (the IM commands, a `cmd` this schema does not know): refused, the connection kept.
    case unsupported(name: String, i: Int32?)

    init(_ command: LCGenericCommand) {
        let i = command.hasI ? command.i : nil
        switch command.cmd {
        case .login: self = .login(appId: command.appID, installationId: command.installationID)
        case .ack: self = .ack(ids: command.ackMessage.ids)
        case .echo: self = .echo(i: i)
        default:
            // An unknown value is kept as an unknown field and reads as the default `session`.
            self = .unsupported(name: command.hasCmd ? "\(command.cmd)" : "session", i: i)
        }
    }
}

/// The error codes the SDK dialect answers with (the SDKs' own table, research §3.1), and, where that table has
/// none, the WebSocket close code of the same meaning (RFC 6455 §7.4.1), as the SDKs' codes mirror close codes.
enum SDKErrorCode: Int32 {
    case appNotAvailable = 4100
    case invalidLogin = 4103
    case sessionRequired = 4105
    case loginTimeout = 4108
    case frameTooLong = 4109
    case internalError = 4200
    case unsupportedData = 1003
    case invalidPayload = 1007
}

/// The commands the server sends in the SDK dialect.
enum SDKReply {
    /// After a login: `service=0` routes it to the push listener, `pushDisabled=false` keeps the SDK
    /// reconnecting on network changes (research §3.1).
    static func loggedin() -> LCGenericCommand {
        var command = LCGenericCommand()
        command.cmd = .loggedin
        command.service = 0
        command.loggedinMessage.pushDisabled = false
        return command
    }

    /// One message: its id (the device's sequence number) and the push JSON. `offline` marks messages read
    /// from the store rather than announced while the device was connected (the Android SDK ignores it).
    static func data(id: String, json: String, offline: Bool) -> LCGenericCommand {
        var command = LCGenericCommand()
        command.cmd = .data
        command.dataMessage.ids = [id]
        var message = LCJsonObjectMessage()
        message.data = json
        command.dataMessage.msg = [message]
        if offline { command.dataMessage.offline = true }
        return command
    }

    static func error(_ code: SDKErrorCode, reason: String, i: Int32? = nil) -> LCGenericCommand {
        error(code: code.rawValue, reason: reason, i: i)
    }

    static func error(code: Int32, reason: String, i: Int32? = nil) -> LCGenericCommand {
        var command = LCGenericCommand()
        command.cmd = .error
        if let i { command.i = i }
        command.errorMessage.code = code
        command.errorMessage.reason = reason
        return command
    }

    static func echo(i: Int32?) -> LCGenericCommand {
        var command = LCGenericCommand()
        command.cmd = .echo
        if let i { command.i = i }
        return command
    }
}
