import Curl
import Foundation
import HTTPTypes
import PushCore

/// Classifies an APNs answer. Pure, so every status/reason pair is unit-tested without a server.
///
/// Error bodies are `{"reason": "…", "timestamp": <ms>}`; the timestamp comes with 410 and says since when the
/// token is invalid.
public enum APNsResponseMapping {
    /// `headers` is evaluated only when needed, since a `CurlResponse` parses its header lines on each read.
    public static func outcome(
        status: Int,
        headers: @autoclosure () -> HTTPFields,
        body: [UInt8],
        sentId: String? = nil,
        now: Date = Date()
    ) -> DeliveryOutcome {
        // APNs echoes the apns-id it was sent; the header is read only when none was, so a delivered
        // notification never has its response headers parsed.
        if status == 200 { return .success(id: sentId ?? headers()[.apnsId] ?? "") }
        let headers = headers()
        let document = body.isEmpty ? nil : try? JSON.parse(body)
        let parsed = document?["reason"]?.stringValue.map(APNsErrorReason.init)
        let reason: ProviderReason = parsed.map { .apns($0) } ?? .httpStatus(status)
        let since = document?["timestamp"]?.intValue.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        let retryAfter = headers[.retryAfter].flatMap { RetryAfter.parse($0, now: now) }

        switch (status, parsed) {
        case (410, _), (400..<500, .badDeviceToken?), (400..<500, .unregistered?), (400..<500, .expiredToken?):
            return .invalidToken(reason: reason, since: since)
        case (403, .expiredProviderToken?):
            return .expiredProviderToken(reason: reason)
        case (429, _), (500..<600, _):
            return .retryable(reason: reason, retryAfter: retryAfter)
        default:
            return .permanent(reason: reason)
        }
    }
}
