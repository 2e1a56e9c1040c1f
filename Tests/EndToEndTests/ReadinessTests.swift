import Foundation
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// `/ready` follows the database: 200 while PostgreSQL answers, 503 with a JSON reason while it is down,
/// 200 again once it is back; `/health` answers throughout (the process is alive).
@Suite("Readiness", .requiresPostgreSQL, .serialized)
struct ReadinessTests {
    @Test("/ready goes 503 with a reason when PostgreSQL stops and back to 200 when it starts")
    func readyFollowsTheDatabase() async throws {
        guard PrivateCluster.isAvailable else {
            Issue.record("PostgreSQL binaries are required")
            return
        }
        try await HeavyTests.exclusive {
            let cluster = try PrivateCluster()
            defer { cluster.destroy() }
            let server = try ServerProcess(databaseURL: cluster.databaseURL)
            defer { server.stop() }
            let http = TestHTTP(baseURL: server.baseURL, headers: [:])
            let before = try await http.send("GET", "/ready")
            #expect(before.status == 200, "\(before.text)")
            #expect(before.body["checks"] == ["postgres": "ok", "migrations": "ok", "fanout": "ok"])

            try cluster.stop()
            let down = try await http.send("GET", "/ready")
            #expect(down.status == 503, "\(down.text)")
            #expect(down.body["code"] == 1)
            let reason = try #require(down.body["error"]?.stringValue)
            #expect(reason.hasPrefix("not ready: "), "\(reason)")
            #expect(reason.contains("postgres: unreachable"), "\(reason)")
            #expect(down.body["checks"]?["postgres"]?.stringValue?.hasPrefix("unreachable") == true)
            // The fastest of three answers: a /ready that waits on the dead database is slow every time, while
            // a test process starved by the suite's parallel tests on two cores can be slow once.
            var fastest = Double.infinity
            for _ in 0..<3 {
                let asked = Date()
                #expect(try await http.send("GET", "/ready").status == 503)
                fastest = min(fastest, Date().timeIntervalSince(asked))
            }
            #expect(fastest < 5, "/ready must answer promptly while the database is down")
            let alive = try await http.send("GET", "/health")
            #expect(alive.status == 200)

            try cluster.start()
            let deadline = Date().addingTimeInterval(30)
            var last = down
            while Date() < deadline {
                last = try await http.send("GET", "/ready")
                if last.status == 200 { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(last.status == 200, "\(last.text)")
        }
    }

    @Test("/metrics answers only with the bearer token when one is configured")
    func metricsToken() async throws {
        let db = try await TestDatabase.make()
        let server = try ServerProcess(databaseURL: db.url, environment: ["METRICS_TOKEN": "s3cret-token"])
        defer { server.stop() }
        let anonymous = try await TestHTTP(baseURL: server.baseURL, headers: [:]).send("GET", "/metrics")
        #expect(anonymous.status == 401)
        #expect(anonymous.body["code"] == 401)
        let wrong = try await TestHTTP(baseURL: server.baseURL, headers: ["Authorization": "Bearer nope"])
            .send("GET", "/metrics")
        #expect(wrong.status == 401)
        let allowed = try await TestHTTP(baseURL: server.baseURL, headers: ["Authorization": "Bearer s3cret-token"])
            .send("GET", "/metrics")
        #expect(allowed.status == 200)
        #expect(allowed.text.contains("# TYPE pushledger_http_requests_total counter"))
    }
}
