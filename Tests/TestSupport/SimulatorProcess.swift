import Foundation
import PushCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Throw-away provider credentials made with the openssl CLI: an APNs .p8 key and an FCM service account, and
/// a WNS package SID and secret.
public struct ProviderKeys: Sendable {
    public let directory: String
    public var apnsKeyFile: String { directory + "/apns.p8" }
    public var serviceAccountFile: String { directory + "/service-account.json" }
    public let keyId = "TESTKEY01"
    public let teamId = "TEAMID0001"
    public let topic = "com.example.pushledger"
    public let wnsPackageSid = "ms-app://s-1-15-2-1234567890"
    public let wnsSecret = "wns+secret/Value="

    public static func make() throws -> ProviderKeys {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pl-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let script = """
            set -e
            openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out apns.p8
            openssl genrsa 2048 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out fcm.pem
            python3 -c 'import json; print(json.dumps({"type":"service_account","project_id":"demo","client_email":"pl@demo.iam.gserviceaccount.com","private_key":open("fcm.pem").read(),"token_uri":"https://127.0.0.1/token"}))' > service-account.json
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw ServerFailure.didNotStart("openssl failed") }
        return ProviderKeys(directory: dir)
    }

    /// `app set` pairs pointing an app at a simulator with these credentials.
    public func appSettings(simulator: SimulatorProcess) -> [String] {
        simulator.appSettings.map { "\($0)=\($1)" }.sorted() + [
            "apns.key_file=\(apnsKeyFile)", "apns.key_id=\(keyId)", "apns.team_id=\(teamId)", "apns.topic=\(topic)",
            "fcm.service_account_file=\(serviceAccountFile)", "fcm.project_id=demo",
            "wns.package_sid=\(wnsPackageSid)", "wns.secret=\(wnsSecret)",
        ]
    }
}

/// `pushledger simulate` as a child process, verifying JWTs made from `keys`.
public final class SimulatorProcess: @unchecked Sendable {
    public let process: Process
    public let port: Int
    public let caFile: String
    public let control: String
    public let appSettings: [String: String]

    public init(keys: ProviderKeys, extraArguments: [String] = []) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ServerProcess.binaryPath)
        p.arguments =
            [
                "simulate", "--port", "0", "--cert-dir", keys.directory + "/certs", "--apns-key-file", keys.apnsKeyFile,
                "--apns-key-id", keys.keyId, "--apns-team-id", keys.teamId, "--fcm-service-account",
                keys.serviceAccountFile, "--wns-package-sid", keys.wnsPackageSid, "--wns-secret", keys.wnsSecret,
            ] + extraArguments
        let output = try ChildOutput()
        p.standardOutput = try output.handle()
        try p.run()
        process = p
        let info: JSON? = try output.waitForJSON(key: "simulator", process: p)
        guard let info, let port = info["port"]?.intValue, let ca = info["caFile"]?.stringValue,
            let control = info["control"]?.stringValue
        else {
            p.terminate()
            throw ServerFailure.didNotStart("simulator: " + output.text)
        }
        self.port = Int(port)
        self.caFile = ca
        self.control = control
        self.appSettings = (info["appSettings"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// GET a control endpoint (`stats`, `requests?token=…`) with curl, trusting the simulator's CA.
    public func control(_ path: String, method: String = "GET") throws -> JSON {
        try curl(["-X", method, control + "/" + path])
    }

    private func curl(_ arguments: [String]) throws -> JSON {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sS", "--cacert", caFile] + arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return try JSON.parse(String(decoding: data, as: UTF8.self))
    }

    /// A channel URI of the WNS look-alike; the default rules answer 410 to ids starting `expired-`.
    public func wnsChannel(_ id: String) -> String { "https://127.0.0.1:\(port)/wns/\(id)" }

    public func requests(token: String) throws -> JSON { try control("requests?token=\(token)") }

    /// POSTs runtime settings (`/_sim/config`: latency, failure ratios, injection rules).
    @discardableResult
    public func configure(_ settings: JSON) throws -> JSON {
        try curl([
            "-X", "POST", "-H", "content-type: application/json", "--data", settings.encoded(), control + "/config",
        ])
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
