import Curl
import Foundation
import HTTPTypes
import PushCore

/// Saves installations through the REST API as an SDK would, and keeps the channel tokens they answer.
struct DeviceRegistrar {
    let baseURL: String
    let appId: String
    let key: String?
    let deviceType: String
    let caFile: String?
    let channels: [String]

    func register(_ installationId: String) async throws -> String {
        let client = try makeClient()
        defer { Task { await client.shutdown() } }
        return try await register(installationId, with: client)
    }

    /// Saves many installations at once (bounded concurrency); answers them with their tokens, in order.
    func registerAll(_ installationIds: [String]) async throws -> [(installationId: String, token: String)] {
        let client = try makeClient()
        defer { Task { await client.shutdown() } }
        var tokens: [String: String] = [:]
        try await withThrowingTaskGroup(of: (String, String).self) { group in
            var next = installationIds.makeIterator()
            for _ in 0..<64 {
                guard let id = next.next() else { break }
                group.addTask { (id, try await register(id, with: client)) }
            }
            while let (id, token) = try await group.next() {
                tokens[id] = token
                if let id = next.next() { group.addTask { (id, try await register(id, with: client)) } }
            }
        }
        return installationIds.map { ($0, tokens[$0]!) }
    }

    private func makeClient() throws -> CurlClient {
        var configuration = CurlConfiguration(
            tls: CurlTLSConfiguration(caFile: caFile), maxHostConnections: 8, maxTotalConnections: 8)
        configuration.driverThreads = 1
        configuration.protocols = "http,https"
        return try CurlClient(configuration: configuration)
    }

    private func register(_ installationId: String, with client: CurlClient) async throws -> String {
        guard let key else { throw DeviceFailure(message: "--key is needed to save the installation") }
        var body: [String: JSON] = ["deviceType": .string(deviceType), "installationId": .string(installationId)]
        if !channels.isEmpty { body["channels"] = .array(channels.map(JSON.string)) }
        var headers = HTTPFields()
        headers[HTTPField.Name("X-LC-Id")!] = appId
        headers[HTTPField.Name("X-LC-Key")!] = key
        headers[.contentType] = "application/json"
        let response = try await client.send(
            CurlRequest(
                method: .post, url: baseURL + "/1.1/installations", headers: headers,
                body: Array(JSON.object(body).encoded().utf8), timeout: .seconds(30)))
        let text = String(decoding: response.body, as: UTF8.self)
        guard (200..<300).contains(response.status) else {
            throw DeviceFailure(message: text.isEmpty ? "HTTP \(response.status) saving the installation" : text)
        }
        guard let token = (try? JSON.parse(text))?["channelToken"]?.stringValue else {
            throw DeviceFailure(
                message: "The save answered no channelToken: the installation existed already; "
                    + "save it with the master key (--key \"<masterKey>,master\") or pass --token")
        }
        return token
    }
}
