import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// The send form: data, audience, schedule; "Preview" counts the audience with the fan-out's own query,
/// "Send" records the push through the REST API's validation and lands on its record.
extension ConsoleRoutes {
    func sendForm(_ request: Request, _ context: AppRequestContext) throws -> Response {
        let chrome = try chrome(request, context, section: "send")
        return pages.page("send", title: "Send a push", SendForm.defaults, chrome: chrome)
    }

    func send(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let chrome = try chrome(request, context, section: "send")
        var request = request
        let form = try await FormBody.read(&request)
        let send = SendForm(form)
        var values = send.echo
        do {
            let (body, devices) = try send.body()
            if form["action"] == "send" {
                let accepted = try await services.pushSubmission.submit(
                    body, devices: devices, headerProd: nil, app: app, rights: .master,
                    metadata: context.metadata(for: request))
                return Response.redirect(to: "/console/pushes/\(accepted.objectId)?notice=sent", type: .normal)
            }
            let parsed = try await services.pushSubmission.validate(
                body, devices: devices, headerProd: nil, app: app, rights: .master, now: services.pushes.clock.now())
            let preview = try await services.targeting.preview(parsed, app: app)
            values["preview"] =
                [
                    "platforms": preview.devices.map { ["platform": $0.platform, "count": $0.count] as [String: Any] },
                    "total": preview.total, "quotaLeft": preview.quotaLeft, "quota": preview.quota,
                    "overQuota": preview.total > preview.quotaLeft, "none": preview.total == 0,
                    "scheduled": parsed.isScheduled, "body": JSON.object(body).encoded(),
                ] as [String: Any]
            return pages.page("send", title: "Send a push", values, chrome: chrome)
        } catch {
            // Bad input is shown on the form it came from, with the API's code; nothing was recorded.
            let lean = LeanErrorMiddleware.translate(error, request: request, context: context)
            values["error"] = "Code \(lean.error.code): \(lean.error.message)"
            return pages.page("send", title: "Send a push", values, chrome: chrome, status: lean.status)
        }
    }
}

/// The send form's fields and the `/push` (or `/push/devices`) body they make.
struct SendForm {
    let form: FormBody

    init(_ form: FormBody) { self.form = form }

    static let fields = [
        "alert", "title", "badge", "sound", "custom", "ios_json", "android_json", "wp_json", "channels", "where",
        "device_ids", "push_time", "expiration_interval", "notification_id",
    ]

    static var defaults: [String: Any] {
        ["audience_channels": true, "prod_prod": true, "type_ios": true]
    }

    /// What the user typed, to put back into the form.
    var echo: [String: Any] {
        var out: [String: Any] = [:]
        for name in Self.fields { out[name] = form[name] ?? "" }
        out["audience_" + (form["audience"] ?? "channels")] = true
        out["prod_" + (form["prod"] ?? "prod")] = true
        out["type_" + (form["device_type"] ?? "ios")] = true
        return out
    }

    /// The request body and whether it goes to `/push/devices`.
    func body() throws -> (body: [String: JSON], devices: Bool) {
        var body: [String: JSON] = ["data": .object(try data())]
        let devices = form["audience"] == "devices"
        switch form["audience"] ?? "channels" {
        case "channels":
            let names = (form["channels"] ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace })
            if !names.isEmpty { body["channels"] = .array(names.map { .string(String($0)) }) }
        case "where":
            if let text = form.text("where") { body["where"] = try Self.object(text, field: "where") }
        case "devices":
            body["device_type"] = .string(form["device_type"] ?? "ios")
            let ids = (form["device_ids"] ?? "").split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            body["device_ids"] = .array(ids.map { .string($0) })
        default:
            throw LeanError.invalidParameter("Unknown audience \(form["audience"] ?? "").")
        }
        if let time = form.text("push_time") {
            // datetime-local gives minutes without a zone; the form says it is UTC.
            body["push_time"] = .string(time.count == 16 ? time + ":00.000Z" : time)
        }
        if let seconds = form.text("expiration_interval") {
            guard let n = Int64(seconds), n > 0 else {
                throw LeanError.invalidParameter("expiration_interval must be a positive number of seconds.")
            }
            body["expiration_interval"] = .int(n)
        }
        if let id = form.text("notification_id") { body["notification_id"] = .string(id) }
        body["prod"] = .string(form["prod"] == "dev" ? "dev" : "prod")
        // The REST API's size limit for /push holds here too (the device list's own limit is in the parser).
        if !devices, JSON.object(body).encoded().utf8.count > APILimits.maxPushBodyBytes {
            throw LeanError.tooLarge(APILimits.maxPushBodyBytes)
        }
        return (body, devices)
    }

    /// `data` from the common fields, the custom JSON and each platform's own JSON.
    func data() throws -> [String: JSON] {
        var data: [String: JSON] = [:]
        if let custom = form.text("custom") { data = try Self.object(custom, field: "custom data").objectValue ?? [:] }
        for key in ["alert", "title", "sound"] {
            if let v = form.text(key) { data[key] = .string(v) }
        }
        if let badge = form.text("badge") {
            if let n = Int64(badge) {
                data["badge"] = .int(n)
            } else if badge == "Increment" {
                data["badge"] = .string(badge)
            } else {
                throw LeanError.invalidParameter("badge must be a number or Increment.")
            }
        }
        for (field, key) in [("ios_json", "ios"), ("android_json", "android"), ("wp_json", "wp")] {
            if let text = form.text(field) { data[key] = try Self.object(text, field: "data.\(key)") }
        }
        return data
    }

    static func object(_ text: String, field: String) throws -> JSON {
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch {
            throw LeanError.malformedJSON("\(field) is not valid JSON: \(error.description)")
        }
        guard json.objectValue != nil else { throw LeanError.malformedJSON("\(field) must be a JSON object.") }
        return json
    }
}
