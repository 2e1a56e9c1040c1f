import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PushCore

extension Request {
    /// Reads the body as a JSON object. Over `limit` bytes is refused (413) without buffering it whole:
    /// a declared Content-Length is checked first, and streaming stops at the limit otherwise.
    public func jsonObject(limit: Int = APILimits.maxBodyBytes) async throws -> [String: JSON] {
        if let declared = headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw LeanError.tooLarge(limit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw LeanError.tooLarge(limit)
        } catch is NIOTooManyBytesError {
            // A chunked body has no Content-Length; collection stops at the limit instead.
            throw LeanError.tooLarge(limit)
        }
        if buffer.readableBytes == 0 { return [:] }
        let json: JSON
        do {
            json = try JSON.parse(buffer.readableBytesView)
        } catch {
            throw LeanError.malformedJSON(error.description)
        }
        guard let object = json.objectValue else { throw LeanError.malformedJSON("The body must be a JSON object.") }
        return object
    }

    /// A query-string parameter, decoded as a form value (`+` is a space, then percent-decoding), which is
    /// how the SDKs' HTTP libraries encode `where`.
    public func query(_ name: String) -> String? {
        guard let raw = uri.query else { return nil }
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard Self.formDecode(parts[0]) == name else { continue }
            return parts.count > 1 ? Self.formDecode(parts[1]) : ""
        }
        return nil
    }

    /// One `application/x-www-form-urlencoded` name or value (the console's forms use the same encoding).
    public static func formDecode(_ s: Substring) -> String {
        let spaced = s.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// JSON responses rendered with our encoder (sorted keys, integers kept exact).
public enum JSONResponse {
    public static func make(_ body: JSON, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body.encoded())))
    }
}
