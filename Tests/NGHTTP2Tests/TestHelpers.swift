import HTTP2TestSupport
import HTTPTypes

@testable import NGHTTP2

/// A client trusting the test CA, with one loop unless told otherwise so connection counts are exact.
func makeClient(
    caFile: String = TestCertificates.shared.caFile,
    maxHostConnections: Int = 2,
    maxConcurrentStreams: Int = 1000,
    maxInFlight: Int = 2000,
    connectTimeout: Duration = .seconds(10),
    connectionRetries: Int = 3,
    pingInterval: Duration = .seconds(60),
    pingTimeout: Duration = .seconds(10),
    loopThreads: Int = 1,
    tls: NGHTTP2TLSConfiguration? = nil
) throws -> NGHTTP2Client {
    try NGHTTP2Client(
        configuration: NGHTTP2Configuration(
            tls: tls ?? NGHTTP2TLSConfiguration(caFile: caFile),
            maxHostConnections: maxHostConnections,
            maxConcurrentStreams: maxConcurrentStreams,
            maxInFlight: maxInFlight,
            connectTimeout: connectTimeout,
            connectionRetries: connectionRetries,
            pingInterval: pingInterval,
            pingTimeout: pingTimeout,
            loopThreads: loopThreads
        ))
}

/// Waits until `condition` holds, checking every 10 ms, for at most `limit`; returns whether it held. The loop
/// has no hook to await its state changes, so tests poll the counters they are about.
func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: limit)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

extension Result where Failure == NGHTTP2Error {
    var error: NGHTTP2Error? {
        if case .failure(let error) = self { error } else { nil }
    }
}

extension HTTPField.Name {
    static let own = HTTPField.Name("x-own")!
    static let shared = HTTPField.Name("x-shared")!
    static let apnsID = HTTPField.Name("apns-id")!
    static let apnsTopic = HTTPField.Name("apns-topic")!
    static let apnsPushType = HTTPField.Name("apns-push-type")!
    static let apnsExpiration = HTTPField.Name("apns-expiration")!
}
