import Foundation
import Simulator
import Testing

/// What the vendor look-alikes share: printed settings, token revocation and lifetime, statistics and recordings.
@Suite("Vendor look-alikes: settings, tokens, statistics")
struct VendorControlTests {
    @Test("appSettings point every vendor at the simulator with its fixed credentials, keeping the others")
    func appSettings() async throws {
        try await SimulatorHarness.with { simulator in
            let base = "https://127.0.0.1:\(simulator.info.port)"
            let ca = simulator.info.caFile
            let expected: [String: String] = [
                "hms.app_id": "sim-hms-app", "hms.client_secret": "sim-hms-secret", "hms.endpoint": base + "/hms",
                "hms.token_endpoint": base + "/hms/oauth2/v3/token", "hms.ca_file": ca,
                "honor.app_id": "sim-honor-app", "honor.client_id": "sim-honor-client",
                "honor.client_secret": "sim-honor-secret", "honor.endpoint": base + "/honor",
                "honor.token_endpoint": base + "/honor/auth/token", "honor.ca_file": ca,
                "mi.app_secret": "sim-mi-secret", "mi.package_name": "com.example.sim", "mi.endpoint": base + "/mi",
                "mi.global_endpoint": base + "/mi-global", "mi.ca_file": ca,
                "oppo.app_key": "sim-oppo-key", "oppo.master_secret": "sim-oppo-master",
                "oppo.endpoint": base + "/oppo", "oppo.global_endpoint": base + "/oppo-global", "oppo.ca_file": ca,
                "vivo.app_id": "10001", "vivo.app_key": "sim-vivo-key", "vivo.app_secret": "sim-vivo-secret",
                "vivo.endpoint": base + "/vivo", "vivo.ca_file": ca,
                "mz.app_id": "110001", "mz.app_secret": "sim-mz-secret", "mz.endpoint": base + "/mz",
                "mz.global_endpoint": base + "/mz", "mz.ca_file": ca,
                "apns.endpoint": base, "fcm.token_endpoint": base + "/token",
                "wns.allowed_hosts": "127.0.0.1:\(simulator.info.port)",
            ]
            let printed = simulator.info.appSettings
            for (key, value) in expected {
                #expect(printed[key] == value, "\(key)")
            }
            let info = try simulator.request("GET", "/_sim/info").json
            #expect(info["appSettings"] as? [String: String] == printed)
        }
    }

    @Test("revoking makes every vendor answer its auth error until a new token is fetched")
    func revocation() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let hms = try client.accessToken(try client.hmsToken())
            let honor = try client.accessToken(try client.honorToken())
            let oppo = try client.oppoToken()
            let vivo = try client.vivoToken()
            let id = registrationID()
            #expect(try client.hmsSend(tokens: [id], bearer: hms).status == 200)

            let revoked = try simulator.request("POST", "/_sim/vendors/revoke")
            #expect(revoked.status == 200)
            #expect(try revoked.json["revoked"] as? Int == 4)
            let hmsRefused = try client.hmsSend(tokens: [id], bearer: hms)
            #expect(hmsRefused.status == 401)
            #expect(try hmsRefused.json["code"] as? String == "80200003")
            let honorRefused = try client.honorSend(tokens: [id], bearer: honor)
            #expect(honorRefused.status == 401)
            #expect(try honorRefused.json["code"] as? Int == 80_200_003)
            #expect(try client.oppoSend(regIDs: [id], authToken: oppo).json["code"] as? Int == 11)
            #expect(try client.vivoSend(regID: id, authToken: vivo).json["result"] as? Int == 10000)

            // A server fetches a new token once and sends again.
            let fresh = try client.accessToken(try client.hmsToken())
            #expect(try client.hmsSend(tokens: [id], bearer: fresh).json["code"] as? String == "80000000")
            #expect(try client.vivoSend(regID: id, authToken: try client.vivoToken()).json["result"] as? Int == 0)
        }
    }

    @Test("vendorTokenLifetimeSeconds shortens the tokens issued from then on")
    func shortLifetime() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let before = try client.accessToken(try client.hmsToken())
            let changed = try simulator.configure(#"{"vendorTokenLifetimeSeconds":1}"#)
            #expect(try changed.json["vendorTokenLifetimeSeconds"] as? Int == 1)
            let granted = try client.hmsToken()
            #expect(try granted.json["expires_in"] as? Int == 1)
            let short = try client.accessToken(granted)
            let oppo = try client.oppoToken()
            let id = registrationID()
            try await Task.sleep(for: .milliseconds(1300))
            let expired = try client.hmsSend(tokens: [id], bearer: short)
            #expect(expired.status == 401)
            #expect(try expired.json["code"] as? String == "80200003")
            #expect(try client.oppoSend(regIDs: [id], authToken: oppo).json["code"] as? Int == 11)
            // Tokens issued before the change keep their hour.
            #expect(try client.hmsSend(tokens: [id], bearer: before).status == 200)

            _ = try simulator.configure(#"{"vendorTokenLifetimeSeconds":null}"#)
            #expect(try client.hmsToken().json["expires_in"] as? Int == 3600)
            #expect(try simulator.configure(#"{"vendorTokenLifetimeSeconds":-1}"#).status == 400)
        }
    }

    @Test("stats list every vendor; recordings show each id's request with form fields and JSON parsed")
    func statisticsAndRecordings() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let stats = try simulator.statistics()
            for key in ["hms", "honor", "mi", "oppo", "vivo", "mz"] {
                let vendor = try #require(stats[key] as? [String: Any], "\(key)")
                #expect(Set(vendor.keys) == ["httpRequests", "requests", "devices", "accepted", "rejected", "refused"])
            }
            for key in ["hmsAuth", "honorAuth", "oppoAuth", "vivoAuth"] {
                #expect(stats[key] is [String: Any], "\(key)")
            }

            let mi = [registrationID(), registrationID()]
            _ = try client.miSend(regIDs: mi)
            let record = try simulator.request("GET", "/_sim/requests?token=\(mi[1])").json
            #expect(record["accepted"] as? Int == 1)
            let recorded = try #require((record["recorded"] as? [[String: Any]])?.first)
            #expect(recorded["provider"] as? String == "mi")
            #expect(recorded["path"] as? String == "/mi/v3/message/regid")
            #expect((recorded["headers"] as? [String: String])?["authorization"] == "key=sim-mi-secret")
            let fields = try #require(recorded["payload"] as? [String: Any])
            #expect(fields["registration_id"] as? String == mi.joined(separator: ","))
            #expect((fields["payload"] as? [String: Any])?["alert"] as? String == "hi")

            let oppoID = registrationID()
            _ = try client.oppoSend(regIDs: [oppoID], authToken: try client.oppoToken())
            let oppoRecord = try simulator.request("GET", "/_sim/requests?token=\(oppoID)").json
            let oppoPayload = try #require(
                (oppoRecord["recorded"] as? [[String: Any]])?.first?["payload"] as? [String: Any])
            let messages = try #require(oppoPayload["messages"] as? [[String: Any]])
            #expect(messages.first?["target_value"] as? String == oppoID)

            let mzID = registrationID()
            _ = try client.mzSend(pushIDs: [mzID])
            let mzRecord = try simulator.request("GET", "/_sim/requests?token=\(mzID)").json
            let mzPayload = try #require(
                (mzRecord["recorded"] as? [[String: Any]])?.first?["payload"] as? [String: Any])
            #expect((mzPayload["messageJson"] as? [String: Any])?["noticeBarInfo"] != nil)

            let after = try simulator.statistics()
            #expect(after["distinctTokens"] as? Int == 4)
            #expect((after["mi"] as? [String: Any])?["devices"] as? Int == 2)
            _ = try simulator.request("POST", "/_sim/reset")
            let reset = try simulator.statistics()
            #expect((reset["mi"] as? [String: Any])?["requests"] as? Int == 0)
            #expect((reset["oppoAuth"] as? [String: Any])?["requests"] as? Int == 0)
        }
    }

    @Test("latency delays vendor answers too")
    func latency() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            _ = try simulator.configure(#"{"latency":{"fixedMilliseconds":400}}"#)
            let start = Date()
            #expect(try client.miSend(regIDs: [registrationID()]).json["code"] as? Int == 0)
            #expect(Date().timeIntervalSince(start) >= 0.4)
        }
    }

    @Test("vendor rules name a signal; another reason is refused")
    func vendorRules() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bad = try simulator.configure(
                #"{"rules":[{"provider":"mi","prefix":"x-","status":400,"reason":"Unregistered"}]}"#)
            #expect(bad.status == 400)
            let good = try simulator.configure(
                #"{"rules":[{"provider":"mi","substring":"gone","status":410,"reason":"invalid"}]}"#)
            #expect(good.status == 200)
            let gone = "a-gone-" + registrationID()
            let response = try client.miSend(regIDs: [registrationID(), gone, registrationID("invalid-")])
            let data = try #require(try response.json["data"] as? [String: Any])
            #expect(data["bad_regids"] as? String == gone)
        }
    }
}
