import Crypto
import Foundation
import Testing

/// Requests to the Android vendor look-alikes built the way docs/vendors.md says a server builds them, with the
/// settings the simulator prints in `appSettings`. Signatures are computed here from the contract, not by the
/// simulator's code, so a test fails if the two disagree.
struct VendorClient {
    let simulator: SimulatorHarness

    var settings: [String: String] { self.simulator.info.appSettings }

    /// The path part of a printed setting, e.g. `/hms` for `hms.endpoint`.
    func path(_ setting: String, _ suffix: String = "") throws -> String {
        let url = try #require(self.settings[setting], "appSettings lacks \(setting)")
        let base = self.simulator.baseURL
        guard url.hasPrefix(base) else { throw VendorClientError("\(setting)=\(url) is not on \(base)") }
        return String(url.dropFirst(base.count)) + suffix
    }

    // MARK: Transport

    func postJSON(_ path: String, _ object: Any, headers: [String: String] = [:]) throws -> CurlResponse {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try self.post(path, body: body, headers: ["content-type": "application/json;charset=utf-8"], headers)
    }

    func postForm(_ path: String, _ fields: [(String, String)], headers: [String: String] = [:]) throws -> CurlResponse
    {
        let contentType = ["content-type": "application/x-www-form-urlencoded;charset=UTF-8"]
        return try self.post(path, body: Self.formEncode(fields), headers: contentType, headers)
    }

    /// Large bodies go through a file: one command-line argument holds at most 128 KB.
    private func post(
        _ path: String, body: String, headers: [String: String], _ extra: [String: String]
    ) throws -> CurlResponse {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vendor-body-\(UUID().uuidString)")
        try Data(body.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try self.simulator.request(
            "POST", path, headers: headers.merging(extra) { _, override in override },
            extraArguments: ["--data-binary", "@" + file.path])
    }

    static func formEncode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }

    static func md5(_ text: String) -> String {
        Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static var milliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: HMS and Honor

    func hmsToken(clientID: String = "sim-hms-app", secret: String = "sim-hms-secret") throws -> CurlResponse {
        try self.postForm(
            try self.path("hms.token_endpoint"),
            [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)])
    }

    func honorToken(clientID: String = "sim-honor-client", secret: String = "sim-honor-secret") throws -> CurlResponse {
        try self.postForm(
            try self.path("honor.token_endpoint"),
            [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)])
    }

    func accessToken(_ response: CurlResponse) throws -> String {
        #expect(response.status == 200)
        return try #require(try response.json["access_token"] as? String)
    }

    static let intent =
        "intent://cn.leancloud.push/notify_detail#Intent;scheme=lcpushscheme;launchFlags=0x10000000;"
        + "S.content=%7B%22alert%22%3A%22hi%22%7D;end"

    /// An HMS notification as the contract shows it; `notification` replaces `android.notification`.
    func hmsSend(
        tokens: [String], bearer: String?, appID: String = "sim-hms-app", data: String = #"{"alert":"hi"}"#,
        notification: [String: Any]? = nil
    ) throws -> CurlResponse {
        let click: [String: Any] = ["type": 1, "intent": Self.intent]
        let android: [String: Any] = [
            "ttl": "86400s",
            "notification": notification ?? ["title": "Hello", "body": "hi", "click_action": click],
        ]
        let body: [String: Any] = [
            "validate_only": false, "message": ["token": tokens, "data": data, "android": android],
        ]
        var headers: [String: String] = [:]
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        return try self.postJSON(try self.path("hms.endpoint", "/v1/\(appID)/messages:send"), body, headers: headers)
    }

    func honorSend(
        tokens: [String], bearer: String?, timestamp: Bool = true, title: String = "Hello",
        clickAction: Bool = true
    ) throws -> CurlResponse {
        var notification: [String: Any] = ["title": title, "body": "hi"]
        if clickAction { notification["clickAction"] = ["type": 1, "intent": Self.intent] }
        let body: [String: Any] = [
            "data": #"{"alert":"hi"}"#, "token": tokens, "android": ["ttl": "86400s", "notification": notification],
        ]
        var headers: [String: String] = [:]
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        if timestamp { headers["timestamp"] = String(Self.milliseconds) }
        return try self.postJSON(
            try self.path("honor.endpoint", "/api/v1/sim-honor-app/sendMessage"), body, headers: headers)
    }

    // MARK: Xiaomi

    func miSend(
        regIDs: [String], secret: String = "sim-mi-secret", packageName: String = "com.example.sim",
        title: String = "Hello", description: String = "hi", global: Bool = false
    ) throws -> CurlResponse {
        let fields = [
            ("registration_id", regIDs.joined(separator: ",")), ("restricted_package_name", packageName),
            ("payload", #"{"alert":"hi","title":"Hello"}"#), ("pass_through", "0"), ("title", title),
            ("description", description), ("notify_type", "-1"), ("time_to_live", "86400000"),
            ("extra.notify_effect", "1"),
        ]
        let setting = global ? "mi.global_endpoint" : "mi.endpoint"
        return try self.postForm(
            try self.path(setting, "/v3/message/regid"), fields, headers: ["authorization": "key=\(secret)"])
    }

    // MARK: OPPO

    func oppoAuth(
        global: Bool = false, masterSecret: String = "sim-oppo-master", timestamp: Int64 = VendorClient.milliseconds
    ) throws -> CurlResponse {
        let sign = Self.sha256("sim-oppo-key" + String(timestamp) + masterSecret)
        return try self.postForm(
            try self.path(global ? "oppo.global_endpoint" : "oppo.endpoint", "/server/v1/auth"),
            [("app_key", "sim-oppo-key"), ("timestamp", String(timestamp)), ("sign", sign)])
    }

    func oppoToken(global: Bool = false) throws -> String {
        let response = try self.oppoAuth(global: global)
        let data = try #require(try response.json["data"] as? [String: Any])
        return try #require(data["auth_token"] as? String)
    }

    static func oppoMessage(_ regID: String, title: String = "Hello", content: String = "hi") -> [String: Any] {
        [
            "target_type": 2, "target_value": regID,
            "notification": [
                "title": title, "content": content, "click_action_type": 0, "action_parameters": #"{"alert":"hi"}"#,
            ],
        ]
    }

    func oppoSend(messages: [[String: Any]], authToken: String?, global: Bool = false) throws -> CurlResponse {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: messages), as: UTF8.self)
        var fields = [("messages", json)]
        if let authToken { fields.insert(("auth_token", authToken), at: 0) }
        return try self.postForm(
            try self.path(
                global ? "oppo.global_endpoint" : "oppo.endpoint", "/server/v1/message/notification/unicast_batch"),
            fields)
    }

    func oppoSend(regIDs: [String], authToken: String?, global: Bool = false) throws -> CurlResponse {
        try self.oppoSend(messages: regIDs.map { Self.oppoMessage($0) }, authToken: authToken, global: global)
    }

    // MARK: vivo

    func vivoAuth(
        secret: String = "sim-vivo-secret", timestamp: Int64 = VendorClient.milliseconds
    ) throws
        -> CurlResponse
    {
        let sign = Self.md5("10001" + "sim-vivo-key" + String(timestamp) + secret)
        return try self.postJSON(
            try self.path("vivo.endpoint", "/message/auth"),
            ["appId": 10001, "appKey": "sim-vivo-key", "timestamp": timestamp, "sign": sign])
    }

    func vivoToken() throws -> String {
        try #require(try self.vivoAuth().json["authToken"] as? String)
    }

    static func vivoMessage(title: String = "Hello", content: String = "hi") -> [String: Any] {
        [
            "appId": 10001, "notifyType": 4, "title": title, "content": content, "skipType": 1,
            "clientCustomMap": ["alert": "hi"], "requestId": UUID().uuidString,
        ]
    }

    func vivo(_ path: String, _ body: [String: Any], authToken: String?) throws -> CurlResponse {
        try self.postJSON(
            try self.path("vivo.endpoint", path), body, headers: authToken.map { ["authToken": $0] } ?? [:])
    }

    func vivoSend(regID: String, authToken: String?, title: String = "Hello") throws -> CurlResponse {
        var body = Self.vivoMessage(title: title)
        body["regId"] = regID
        return try self.vivo("/message/send", body, authToken: authToken)
    }

    /// `saveListPayload`, then `pushToList` with the task id it issued.
    func vivoList(regIDs: [String], authToken: String) throws -> CurlResponse {
        let saved = try self.vivo("/message/saveListPayload", Self.vivoMessage(), authToken: authToken)
        #expect(try saved.json["result"] as? Int == 0)
        let taskID = try #require(try saved.json["taskId"] as? String)
        return try self.vivo(
            "/message/pushToList",
            ["appId": 10001, "regIds": regIDs, "taskId": taskID, "requestId": UUID().uuidString],
            authToken: authToken)
    }

    // MARK: Meizu

    static func meizuNotification(title: String = "Hello", content: String = "hi") -> String {
        let message: [String: Any] = [
            "noticeBarInfo": ["noticeBarType": 0, "title": title, "content": content],
            "clickTypeInfo": ["clickType": 0, "parameters": ["content": #"{"alert":"hi & bye"}"#]],
            "pushTimeInfo": ["offLine": 1, "validTime": 24],
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: message), as: UTF8.self)
    }

    /// Meizu's signature: md5 of the fields but `sign`, sorted by name as `k=v`, then the app secret, over the
    /// values before URL encoding.
    static func meizuSign(_ fields: [(String, String)], secret: String) -> String {
        md5(fields.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined() + secret)
    }

    func mzSend(
        pushIDs: [String], messageJson: String = VendorClient.meizuNotification(), secret: String? = "sim-mz-secret",
        passThrough: Bool = false
    ) throws -> CurlResponse {
        var fields = [("appId", "110001"), ("pushIds", pushIDs.joined(separator: ",")), ("messageJson", messageJson)]
        if let secret { fields.append(("sign", Self.meizuSign(fields, secret: secret))) }
        let kind = passThrough ? "unvarnished" : "varnished"
        return try self.postForm(try self.path("mz.endpoint", "/garcia/api/server/push/\(kind)/pushByPushId"), fields)
    }
}

struct VendorClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A registration id unique per call, so tests never share per-token state (retry attempts, counters).
func registrationID(_ prefix: String = "") -> String {
    prefix + "reg" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
}
