import Foundation

/// Runs nghttp2's h2load against the simulator's APNs endpoint and reads its summary.
struct H2Load {
    var succeeded: Int
    var failed: Int
    var seconds: Double
    var requestsPerSecond: Double
    var output: String

    static func run(
        simulator: SimulatorHarness, requests: Int, clients: Int, streams: Int, token: String = deviceToken()
    ) throws -> H2Load {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-\(UUID().uuidString).json")
        try Data(#"{"aps":{"alert":"load"}}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let result = try CommandLineTool.run(
            "h2load",
            [
                "-n", "\(requests)", "-c", "\(clients)", "-m", "\(streams)", "-H", "apns-topic: com.example.app",
                "-d", body.path, simulator.baseURL + "/3/device/\(token)",
            ]
        )
        return H2Load(parsing: result.standardOutput)
    }

    init(parsing output: String) {
        self.output = output
        func number(after label: String, in line: Substring) -> Double? {
            guard let range = line.range(of: label) else { return nil }
            let rest = line[range.upperBound...].drop { $0 == " " }
            return Double(rest.prefix { $0.isNumber || $0 == "." })
        }
        var succeeded = 0
        var failed = 0
        var seconds = 0.0
        var rate = 0.0
        for line in output.split(separator: "\n") {
            if line.hasPrefix("finished in") {
                // "finished in 1.23s, 8123.45 req/s, …" or "finished in 250.1ms, …"
                let duration = line.dropFirst("finished in ".count).prefix { $0 != "," }
                if duration.hasSuffix("ms") {
                    seconds = (Double(duration.dropLast(2)) ?? 0) / 1000
                } else if duration.hasSuffix("s") {
                    seconds = Double(duration.dropLast()) ?? 0
                }
                if let comma = line.firstIndex(of: ",") {
                    rate = Double(line[line.index(after: comma)...].drop { $0 == " " }.prefix { $0 != " " }) ?? 0
                }
            }
            if line.hasPrefix("requests:") {
                succeeded = Int(number(after: "done,", in: line) ?? 0)
                failed = Int(number(after: "succeeded,", in: line) ?? 0)
            }
        }
        self.succeeded = succeeded
        self.failed = failed
        self.seconds = seconds
        self.requestsPerSecond = rate
    }
}
