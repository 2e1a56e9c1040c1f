import Foundation
import PushCore
import Testing

@testable import Delivery

/// How a batch's iOS target finds its APNs client when the app has keys of several teams (`BatchPlan.apnsKey`):
/// a team's key, a profile's or the default settings, or the reason it is not sent.
@Suite struct APNsTeamRouteTests {
    let teams = APNsTeams(settings: [
        "apns.key_file": "/k/a.p8", "apns.key_id": "KA", "apns.team_id": "A", "apns.topic": "com.a",
        "apns_team.B.key_file": "/k/b.p8", "apns_team.B.key_id": "KB", "apns_team.B.topics": "com.b",
        "apns.staging.key_file": "/k/s.p8",
    ])

    func request(_ body: [String: JSON] = [:]) throws -> PushRequest {
        var body = body
        body["where"] = [:]
        body["data"] = ["alert": "x"]
        return try PushRequest.parse(body, devicesEndpoint: false, headerProd: nil, now: Date())
    }

    func target(team: String? = nil, topic: String? = nil, profile: String? = nil) -> PushTarget {
        PushTarget(
            objectId: "i", deviceType: "ios", token: "0a", profile: profile, badge: nil, apnsTeam: team,
            apnsTopic: topic)
    }

    func key(_ target: PushTarget, _ request: PushRequest) -> String {
        switch BatchPlan.apnsKey(target, teams: teams, request: request) {
        case .success(let key): key.team.map { "team \($0)" } ?? "profile '\(key.profile)'"
        case .failure(let failure): failure.reason + " " + failure.description
        }
    }

    @Test func teamsProfilesAndTheReasonsADeviceIsNotSent() throws {
        let plain = try request()
        #expect(key(target(team: "B"), plain) == "team B")
        #expect(key(target(topic: "com.a"), plain) == "team A")
        #expect(key(target(topic: "com.b", profile: "staging"), plain) == "profile 'staging'")
        #expect(key(target(team: "Z"), plain) == "NoCredentials NoCredentials(apns team Z)")
        // Saved ambiguous after the push was accepted: counted, never sent with a guessed key.
        #expect(key(target(), plain) == "AmbiguousAPNsTeam AmbiguousAPNsTeam(A,B)")
        #expect(key(target(team: "A"), try request(["apns_team_id": "B"])) == "team B")
        #expect(key(target(topic: "com.a"), try request(["topic": "com.b"])) == "team B")
        #expect(key(target(), try request(["device_profile": "staging"])) == "profile 'staging'")
    }

    @Test func withoutNamedTeamsEveryDeviceKeepsItsProfileOrTheDefaults() throws {
        let plain = APNsTeams(settings: ["apns.key_file": "/a", "apns.key_id": "KA", "apns.team_id": "A"])
        let route = BatchPlan.apnsKey(target(team: "B", profile: "p"), teams: plain, request: try request())
        #expect((try? route.get()) == BatchPlan.APNsRoute.Key(profile: "p", team: nil))
    }
}
