import Foundation

/// Xiaomi's `registration_id` and Meizu's `pushIds` are comma-separated lists in one form field.
enum CommaSeparatedIDs {
    /// Spaces around items are dropped and empty items are no devices, as hand-written requests often have them.
    static func split(_ field: String?) -> [String] {
        (field ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
