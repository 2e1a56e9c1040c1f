import NIOCore
import PushCore

/// What the engine answers; the transport turns it into HTTP/2 frames or an HTTP/1 response.
struct SimulatorResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: ByteBuffer?
    /// Simulated provider latency: the transport schedules the write this far in the future.
    var delay: TimeAmount = .zero

    init(status: Int, headers: [(name: String, value: String)] = [], body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json(
        _ status: Int, _ text: String, headers: [(name: String, value: String)] = []
    ) -> SimulatorResponse {
        SimulatorResponse(
            status: status,
            headers: headers + [("content-type", "application/json")],
            body: ByteBuffer(string: text)
        )
    }

    static func json(
        _ status: Int, _ value: JSON, headers: [(name: String, value: String)] = []
    ) -> SimulatorResponse {
        self.json(status, value.encoded(), headers: headers)
    }
}
