import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import NIOCore
import PushCore

/// One thing `/ready` checks: nil when it is fine, else why not.
public struct ReadinessCheck: Sendable {
    public let name: String
    public let check: @Sendable () async -> String?

    public init(name: String, check: @escaping @Sendable () async -> String?) {
        self.name = name
        self.check = check
    }
}

/// The endpoints operators and orchestrators use, outside `/1.1` and its app authentication: `/health`
/// (liveness: the process answers), `/ready` (readiness: every check passes) and `/metrics` (Prometheus
/// text exposition, optionally behind a bearer token).
public struct OperationsRoutes: Sendable {
    public var readiness: [ReadinessCheck]
    public var renderMetrics: (@Sendable () -> [UInt8])?
    public var metricsToken: String?
    /// How long one readiness check may take before it counts as failed.
    public var checkTimeout: Duration = .seconds(2)

    public init(
        readiness: [ReadinessCheck] = [], renderMetrics: (@Sendable () -> [UInt8])? = nil, metricsToken: String? = nil
    ) {
        self.readiness = readiness
        self.renderMetrics = renderMetrics
        self.metricsToken = metricsToken
    }

    func register(on router: Router<AppRequestContext>) {
        router.get("/health") { _, _ in JSONResponse.make(["status": "ok"]) }
        router.get("/ready") { _, _ in try await self.ready() }
        if let renderMetrics {
            router.get("/metrics") { request, _ in
                if let token = metricsToken, request.headers[.authorization] != "Bearer \(token)" {
                    throw LeanErrorResponse(.unauthorized)
                }
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: renderMetrics())))
            }
        }
    }

    func ready() async throws -> Response {
        let results = await withTaskGroup(of: (String, String?).self) { group in
            for check in readiness {
                group.addTask { (check.name, await Self.run(check, timeout: checkTimeout)) }
            }
            var results: [(String, String?)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }
        }
        let checks = JSON.object(Dictionary(uniqueKeysWithValues: results.map { ($0.0, JSON.string($0.1 ?? "ok")) }))
        let failures = results.compactMap { name, failure in failure.map { "\(name): \($0)" } }
        if failures.isEmpty { return JSONResponse.make(["status": "ready", "checks": checks]) }
        let body: JSON = [
            "code": 1, "error": .string("not ready: " + failures.joined(separator: "; ")), "checks": checks,
        ]
        return JSONResponse.make(body, status: .serviceUnavailable, headers: [.retryAfter: "5"])
    }

    /// The check's answer, or a timeout: a check that hangs (a saturated pool, a half-open socket) must
    /// still let `/ready` answer promptly.
    static func run(_ check: ReadinessCheck, timeout: Duration) async -> String? {
        await withTaskGroup(of: String??.self) { group in
            group.addTask { .some(await check.check()) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .some("no answer within \(timeout)")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? "no answer"
        }
    }
}
