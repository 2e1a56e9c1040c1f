import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import NGHTTP2

#if canImport(Glibc)
    import Glibc
#endif

@Suite("NGHTTP2Client: cancellation and shutdown", .timeLimit(.minutes(2)))
struct NGHTTP2LifecycleTests {
    /// The stream is reset, the request fails at once, and the connection carries on.
    @Test(.enabled(if: Nghttpd.isInstalled)) func cancellingTheTaskEndsItsStartedRequest() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1)
        let url = server.baseURL + "/hello.txt"
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        server.suspend()
        let task = Task { try await client.send(NGHTTP2Request(url: url, timeout: .seconds(90))) }
        #expect(await eventually { client.statistics.inFlight == 1 })
        let clock = ContinuousClock()
        let cancelled = clock.now
        task.cancel()
        let result = await task.result
        let elapsed = clock.now - cancelled
        #expect(throws: NGHTTP2Error.cancelled) { try result.get() }
        // Far below the 90-s timeout: the whole suite running beside it has kept the task pool from resuming an
        // awaiting task for ten seconds.
        #expect(elapsed < .seconds(60), "cancelled, not ended by the request's 90 s timeout")
        #expect(client.statistics.inFlight == 0)
        server.resume()
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        let statistics = client.statistics
        await client.shutdown()
        #expect(statistics.connectionsOpened == 1)
    }

    @Test func cancellingSendAllFailsEveryUnfinishedRequest() async throws {
        let listener = LocalPort.silentListener()
        defer { close(listener.fd) }
        let client = try makeClient()
        let url = "https://127.0.0.1:\(listener.port)/x"
        let task = Task { await client.send(all: (0..<5).map { _ in NGHTTP2Request(url: url, timeout: .seconds(90)) }) }
        #expect(await eventually { client.statistics.queued == 5 })
        task.cancel()
        let results = await task.value
        await client.shutdown()
        #expect(results.count == 5 && results.allSatisfy { $0.error == .cancelled })
    }

    @Test func anAlreadyCancelledTaskNeverStartsItsRequests() async throws {
        let client = try makeClient()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await client.send(all: (0..<5).map { _ in NGHTTP2Request(url: "https://localhost:1/x") })
        }
        let results = await task.value
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.allSatisfy { $0.error == .cancelled })
        #expect(statistics.resolutions == 0 && statistics.connectionsOpened == 0)
        #expect(statistics.requests == 5 && statistics.failures == 5)
    }

    @Test func aRequestPastItsDeadlineWhileConnectingTimesOut() async throws {
        let listener = LocalPort.silentListener()
        defer { close(listener.fd) }
        let client = try makeClient()
        let clock = ContinuousClock()
        let started = clock.now
        let result = await client.send(all: [
            NGHTTP2Request(url: "https://127.0.0.1:\(listener.port)/x", timeout: .milliseconds(300))
        ])[0]
        let elapsed = clock.now - started
        await client.shutdown()
        #expect(result.error == .timeout(responseStarted: false))
        // Ended by the deadline (a `.timeout`, not the 10-s connect timeout's `.connect`), never before it.
        #expect(elapsed >= .milliseconds(250))
    }

    /// Requests in flight when shutdown begins still finish; requests after it are refused; the loop threads end.
    @Test(.enabled(if: Nghttpd.isInstalled)) func shutdownLetsRequestsInFlightFinish() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1)
        let url = server.baseURL + "/hello.txt"
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        server.suspend()
        let task = Task { await client.send(all: (0..<20).map { _ in NGHTTP2Request(url: url) }) }
        #expect(await eventually { client.statistics.inFlight == 20 })
        client.beginShutdown()
        await #expect(throws: NGHTTP2Error.shutdown) { try await client.send(NGHTTP2Request(url: url)) }
        server.resume()
        let results = await task.value
        let threads = client.loopThreadIDs
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(threads.allSatisfy { SystemThreads.name(ofThread: $0) == nil })
    }

    /// Operators (`top -H`, `perf`) and the benchmarks tell the loops' CPU from the rest of the server's by
    /// this name; after shutdown the threads are gone (joined).
    @Test func everyLoopThreadCarriesItsNameAndEndsAtShutdown() async throws {
        let client = try makeClient(loopThreads: 4)
        #expect(await eventually { client.loopThreadIDs.allSatisfy { $0 != 0 } })
        let threads = client.loopThreadIDs
        #expect(threads.allSatisfy { SystemThreads.name(ofThread: $0) == NGHTTP2Loop.threadName })
        #expect(await SystemThreads.count(named: NGHTTP2Loop.threadName, atLeast: 4) >= 4)
        await client.shutdown()
        #expect(threads.allSatisfy { SystemThreads.name(ofThread: $0) == nil })
        await #expect(throws: NGHTTP2Error.shutdown) { try await client.send(NGHTTP2Request(url: "https://x/")) }
    }
}
