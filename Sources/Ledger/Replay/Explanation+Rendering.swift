import Foundation
import PushCore

extension Explanation {
    /// One line naming the outcome: `TARGETED` or `EXCLUDED by: <condition> …`.
    public var verdict: String {
        if let c = excludedBy { return "EXCLUDED by: \(c.name) (requires \(c.requirement); installation: \(c.value))" }
        return matched ? "TARGETED: every condition met" : "UNDECIDED"
    }

    public var deliveryText: String {
        switch delivery {
        case .notTargeted(let note): return "not targeted" + (note.map { " (\($0))" } ?? "")
        case .pending(let b): return "targeted in batch \(b); outcome still pending"
        case .delivered(let b, let at):
            return "targeted in batch \(b); delivered through \(route ?? "the provider") (accepted) at "
                + LeanDate.format(at)
        case .waitingForDevice(let b):
            return "targeted in batch \(b); waiting on the own channel for the device to connect and acknowledge"
        case .acknowledged(let b, let at):
            return "targeted in batch \(b); delivered (acknowledged by the device on the own channel) at "
                + LeanDate.format(at)
        case .failed(let b, let reason, let at):
            return "targeted in batch \(b); sent through \(route ?? "the provider"), failed at \(LeanDate.format(at)): "
                + reason
        case .cancelled(let b): return "targeted in batch \(b); cancelled before it was sent"
        }
    }

    /// The human-readable report of `pushledger explain`.
    public var text: String {
        var lines = [
            "push \(pushId) requested \(LeanDate.format(requestedAt)); evaluated at \(LeanDate.format(instant)) (\(instantSource))",
            "audience: \(audience.encoded())",
            "",
            "installation \(objectId): history up to the push",
        ]
        if history.isEmpty { lines.append("  (no events yet)") }
        for e in history {
            lines.append(
                "  \(LeanDate.format(e.at))  \(e.type.padding(toLength: 24, withPad: " ", startingAt: 0)) \(e.summary)")
        }
        if let last = laterEvents.last {
            lines.append(
                "  … then \(laterEvents.count) later event(s), the last \(last.type) at \(LeanDate.format(last.at))")
        }
        lines += ["", "targeting conditions"]
        for c in conditions {
            let mark = c.met.map { $0 ? "ok  " : "FAIL" } ?? "n/a "
            lines.append("  [\(mark)] \(c.name): requires \(c.requirement); installation: \(c.value)")
        }
        lines += ["", verdict, "delivery: \(deliveryText)"]
        return lines.joined(separator: "\n")
    }

    /// `--format json`: one object with the same content, camelCase keys.
    public var json: JSON {
        var delivery: [String: JSON]
        switch self.delivery {
        case .notTargeted(let note):
            delivery = ["state": "not targeted"]
            if let note { delivery["note"] = .string(note) }
        case .pending(let b): delivery = ["state": "pending", "batch": .int(Int64(b))]
        case .delivered(let b, let at):
            delivery = ["state": "delivered", "batch": .int(Int64(b)), "at": .string(LeanDate.format(at))]
        case .waitingForDevice(let b): delivery = ["state": "pending", "batch": .int(Int64(b)), "via": "channel"]
        case .acknowledged(let b, let at):
            delivery = [
                "state": "delivered", "batch": .int(Int64(b)), "at": .string(LeanDate.format(at)), "via": "channel",
            ]
        case .failed(let b, let reason, let at):
            delivery = [
                "state": "failed", "batch": .int(Int64(b)), "reason": .string(reason),
                "at": .string(LeanDate.format(at)),
            ]
        case .cancelled(let b): delivery = ["state": "cancelled", "batch": .int(Int64(b))]
        }
        if let route { delivery["route"] = .string(route) }
        func entries(_ list: [HistoryEntry]) -> JSON {
            .array(
                list.map {
                    ["at": .string(LeanDate.format($0.at)), "type": .string($0.type), "summary": .string($0.summary)]
                })
        }
        return [
            "app": .string(appId), "push": .string(pushId), "installation": .string(objectId),
            "requestedAt": .string(LeanDate.format(requestedAt)), "at": .string(LeanDate.format(instant)),
            "atSource": .string(instantSource), "audience": audience,
            "history": entries(history), "laterEvents": entries(laterEvents),
            "conditions": .array(
                conditions.map { c in
                    [
                        "name": .string(c.name), "requires": .string(c.requirement), "value": .string(c.value),
                        "met": c.met.map { .bool($0) } ?? .null,
                    ]
                }),
            "verdict": .string(matched ? "targeted" : (excludedBy == nil ? "undecided" : "excluded")),
            "excludedBy": excludedBy.map { .string($0.name) } ?? .null,
            "delivery": .object(delivery),
        ]
    }
}
