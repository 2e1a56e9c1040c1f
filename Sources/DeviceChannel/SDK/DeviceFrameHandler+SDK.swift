import Ledger
import NIOCore
import PushCore

/// The LeanCloud SDK dialect of a device connection (SPEC §12.4; research/lc-push-channel.md §6): the device
/// logs in by appId and installationId, which an app accepts only with `channel.login=installation-id`, since
/// that login carries no credential; then it is a session of the hub like any other, and its acks count as the
/// JSON dialect's do.
extension DeviceFrameHandler {
    /// A connection that has not logged in by then is closed: it holds a connection slot for nothing.
    static let loginTimeout: TimeAmount = .seconds(30)

    func awaitLogin() {
        guard let context, case .sdk(_, _, let framing) = role else { return }
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        loginTimer = context.eventLoop.scheduleTask(in: Self.loginTimeout) {
            guard me.value.session == nil else { return }
            me.value.refuseLogin(.loginTimeout, reason: "no login command within 30 s", framing: framing)
        }
    }

    /// One message of the SDK dialect. A message that is not a command of the connection's framing ends the
    /// connection (it is no SDK speaking); a command the channel does not serve is answered with an error.
    func receivedCommand(_ payload: [UInt8], text: Bool, framing: SDKFraming, hub: ChannelHub, apps: AppDirectory) {
        let command: LCGenericCommand
        do throws(SDKFrameError) {
            command = try framing.decode(payload, text: text)
        } catch {
            let code: SDKErrorCode = error == .notACommand || error == .notBase64 ? .invalidPayload : .unsupportedData
            return refuseLogin(code, reason: error.reason, framing: framing)
        }
        switch SDKCommand(command) {
        case .login(let appId, let installationId):
            login(appId: appId, installationId: installationId, framing: framing, hub: hub, apps: apps)
        case .ack(let ids):
            guard let session else {
                return send(SDKReply.error(.sessionRequired, reason: "log in before acknowledging"), framing: framing)
            }
            // Ids are the device's sequence numbers, which the server wrote; anything else acknowledges nothing.
            hub.acknowledged(ids.compactMap { Int64($0) }, from: session)
        case .echo(let i):
            send(SDKReply.echo(i: i), framing: framing)
        case .unsupported(let name, let i):
            send(SDKReply.error(.unsupportedData, reason: "unsupported command \(name)", i: i), framing: framing)
        }
    }

    private func login(appId: String, installationId: String, framing: SDKFraming, hub: ChannelHub, apps: AppDirectory)
    {
        guard session == nil, !loggingIn else {
            return send(SDKReply.error(.invalidLogin, reason: "already logged in"), framing: framing)
        }
        // The bounds an installation save puts on installationId: no other id can have messages.
        guard !appId.isEmpty, !installationId.isEmpty, installationId.utf8.count <= 256 else {
            return refuseLogin(.invalidLogin, reason: "appId and installationId are required", framing: framing)
        }
        guard let context else { return }
        loggingIn = true
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.makeFutureWithTask { try await apps.find(appId) }.whenComplete { result in
            me.value.loggingIn = false
            me.value.admit(result, installationId: installationId, framing: framing, hub: hub)
        }
    }

    /// The login's app is known (or not): the device's session opens, or the login is refused and the
    /// connection closed.
    private func admit(_ app: Result<App?, any Error>, installationId: String, framing: SDKFraming, hub: ChannelHub) {
        guard context != nil, !closing else { return }
        switch app {
        case .failure:
            refuseLogin(.internalError, reason: "the channel is unavailable; retry with backoff", framing: framing)
        case .success(nil):
            refuseLogin(.appNotAvailable, reason: "unknown appId", framing: framing)
        case .success(let app?) where app.setting(ChannelLogin.settingKey)?.stringValue != ChannelLogin.installationId:
            // Counted, so an operator sees devices that need the setting (SPEC §12.4).
            ChannelMetrics.sdkLoginsRefused.increment()
            refuseLogin(
                .invalidLogin,
                reason: "this app takes channel tokens only; set \(ChannelLogin.settingKey)=installation-id",
                framing: framing)
        case .success(let app?):
            loginTimer?.cancel()
            session = hub.open(app: app, installationId: installationId, dialect: .sdk(framing), socket: socket())
        }
    }

    /// Answers with an `error` command and closes with its code, which is also a valid WebSocket close code.
    func refuseLogin(_ code: SDKErrorCode, reason: String, framing: SDKFraming) {
        send(SDKReply.error(code, reason: reason), framing: framing)
        startClose(code: UInt16(code.rawValue), reason: reason)
    }
}
