import Foundation
import Ledger
import PushCore

/// How values are put on a page: times as `<time>` with the UTC instant (the script shows them in the
/// browser's zone, UTC on hover), rates as percentages, JSON compact and bounded.
enum Shown {
    /// `{"iso", "text"}` for the `time` partial; the text is UTC, readable without the script.
    static func time(_ iso: String?) -> [String: Any] {
        guard let iso, !iso.isEmpty else { return ["text": "—"] }
        let text = iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: ".000Z", with: "Z")
            .replacingOccurrences(of: "Z", with: " UTC")
        return ["iso": iso, "text": text]
    }

    static func time(_ date: Date) -> [String: Any] { time(LeanDate.format(date)) }

    /// `numerator / denominator` in percent with one decimal; a dash when there is nothing to divide by.
    static func percent(_ numerator: Int64, of denominator: Int64) -> String {
        guard denominator > 0 else { return "—" }
        return String(format: "%.1f%%", Double(numerator) * 100 / Double(denominator))
    }

    static func json(_ value: JSON?, limit: Int = 120) -> String {
        guard let value else { return "" }
        let text = value.encoded()
        return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    /// A push's audience in a few words: a device list's size, its channels when that is all it says, else its
    /// `where`.
    static func audience(_ whereJSON: JSON?, _ origin: PushOrigin? = nil) -> String {
        if let origin, let type = origin.deviceType { return deviceList(type, origin.deviceIds) }
        guard let whereJSON, let object = whereJSON.objectValue, !object.isEmpty else { return "all devices" }
        if object.count == 1, let channels = object["channels"] {
            let names = (channels["$in"]?.arrayValue ?? [channels]).compactMap(\.stringValue)
            if !names.isEmpty { return "channels: " + names.joined(separator: ", ") }
        }
        return "where " + json(whereJSON, limit: 80)
    }

    /// A `/push/devices` audience.
    static func deviceList(_ type: String, _ count: Int) -> String { "\(count) listed \(type) device id(s)" }

    /// The CSS class of a status badge: an error message string is a failure.
    static func statusClass(_ status: String) -> String {
        switch status {
        case "done": "ok"
        case "in-queue", "scheduled": "busy"
        case "cancelled": "muted"
        default: "bad"
        }
    }
}
