import Foundation
import PushCore

/// Shared reading and writing of vendor bodies.
enum VendorText {
    /// Characters, as vendors count a title's length (user-perceived characters, so a CJK title counts its
    /// characters, not its bytes).
    static func fits(_ text: String?, _ limit: Int) -> Bool { (text?.count ?? 0) <= limit }

    /// Refuses content whose title or body is longer than the vendor takes (SPEC §12.3: never cut silently).
    static func checkLengths(
        _ content: VendorContent, title: Int, body: Int, vendor: AndroidVendor
    ) -> VendorRefusal? {
        if !fits(content.title, title) {
            return .contentTooLong("\(vendor.rawValue) takes a title of at most \(title) characters")
        }
        if !fits(content.body, body) {
            return .contentTooLong("\(vendor.rawValue) takes a body of at most \(body) characters")
        }
        return nil
    }

    static func parse(_ body: [UInt8]) -> JSON? { try? JSON.parse(body) }

    /// A code that some vendors send as a number and others as a string, as text.
    static func code(_ value: JSON?) -> String? {
        guard let value else { return nil }
        if let text = value.stringValue { return text }
        if let number = value.intValue { return String(number) }
        return nil
    }

    /// The HMS/Honor click intent: the LeanCloud JSON as the `content` extra of an intent the LeanCloud client
    /// module's Activity filter matches (research/hybrid-push.md §1.1, the `#Intent;…;end` form).
    static func clickIntent(host: String, content: String) -> String {
        "intent://\(host)/notify_detail#Intent;scheme=lcpushscheme;launchFlags=0x10000000;S.content="
            + percentEncoded(content) + ";end"
    }

    /// Every byte but the unreserved `A-Z a-z 0-9 - . _ ~` percent-encoded.
    static func percentEncoded(_ text: String) -> String { FormEncoding.escape(text) }

    /// Lowercase hex of bytes.
    static func hex(_ bytes: some Sequence<UInt8>) -> String { HexText.lowercase(Array(bytes)) }
}
