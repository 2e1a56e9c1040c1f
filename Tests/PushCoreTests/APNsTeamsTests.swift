import Testing

@testable import PushCore

/// Seed 001's choice of an APNs team for a device, and the `apns_team.*` settings `app set` takes.
@Suite struct APNsTeamsTests {
    /// Team A is the default key (topic com.a), B and C are `apns_team.*` teams; C shares com.shared with B.
    static let settings: [String: JSON] = [
        "apns.key_file": "/k/a.p8", "apns.key_id": "KA", "apns.team_id": "A", "apns.topic": "com.a",
        "apns_team.B.key_file": "/k/b.p8", "apns_team.B.key_id": "KB", "apns_team.B.topics": "com.b, com.shared",
        "apns_team.C.key_file": "/k/c.p8", "apns_team.C.key_id": "KC", "apns_team.C.topics": "com.shared",
        // A team without its key id is no team, and a profile with APNs settings of its own keeps them.
        "apns_team.D.key_file": "/k/d.p8", "apns.staging.key_file": "/k/s.p8",
    ]
    let teams = APNsTeams(settings: Self.settings)

    func choose(push: String? = nil, device: String? = nil, topic: String? = nil, profile: String? = nil) -> String {
        switch teams.choose(pushTeam: push, installationTeam: device, topic: topic, profile: profile) {
        case .defaultSettings: "settings"
        case .team(let team): team.id
        case .unknownTeam(let id): "unknown \(id)"
        case .ambiguous(let among): "ambiguous " + among.joined(separator: ",")
        }
    }

    @Test func readsTheDefaultKeyAndTheNamedTeams() {
        #expect(teams.teams.keys.sorted() == ["A", "B", "C"])
        #expect(teams.teams["B"]?.topics == ["com.b", "com.shared"])
        #expect(teams.teams["A"] == APNsTeams.Team(id: "A", keyFile: "/k/a.p8", keyId: "KA", topics: ["com.a"]))
        #expect(teams.profiles == ["staging"])
        #expect(teams.uniqueTopics == ["com.a", "com.b"])
        #expect(teams.hasSeveral)
    }

    @Test func thePushsTeamThenTheDevicesThenTheTopicsThenTheOnlyTeam() {
        #expect(choose(push: "C", device: "B", topic: "com.b") == "C")
        #expect(choose(device: "B", topic: "com.a") == "B")
        #expect(choose(topic: "com.b") == "B")
        #expect(choose(topic: "com.a") == "A")
        #expect(choose(topic: "com.shared") == "ambiguous B,C")
        #expect(choose(topic: "com.nobody") == "ambiguous A,B,C")
        #expect(choose() == "ambiguous A,B,C")
        #expect(choose(push: "Z") == "unknown Z")
        #expect(choose(device: "D") == "unknown D")
        #expect(choose(device: "", topic: "com.b") == "B")
        #expect(choose(topic: "com.shared", profile: "staging") == "settings")
        #expect(choose(topic: "com.shared", profile: "other") == "ambiguous B,C")
        let one = APNsTeams(settings: ["apns_team.B.key_file": "/b", "apns_team.B.key_id": "KB"])
        #expect(!one.hasSeveral)
        #expect(one.choose(pushTeam: nil, installationTeam: nil, topic: nil, profile: nil) == .team(one.teams["B"]!))
    }

    @Test func withoutNamedTeamsTheSettingsApplyAsBefore() {
        let plain = APNsTeams(settings: ["apns.key_file": "/a", "apns.key_id": "KA", "apns.team_id": "A"])
        #expect(!plain.hasNamedTeams && !plain.hasSeveral)
        #expect(plain.choose(pushTeam: "Z", installationTeam: "Y", topic: "t", profile: nil) == .defaultSettings)
        #expect(
            APNsTeams(settings: [:]).choose(pushTeam: nil, installationTeam: nil, topic: nil, profile: nil)
                == .defaultSettings)
    }

    @Test func appSetTakesTeamKeysAndRefusesBadOnes() throws {
        #expect(try AppSettings.parse(key: "apns_team.TEAM1.key_file", value: "/k.p8") == "/k.p8")
        #expect(try AppSettings.parse(key: "apns_team.TEAM1.key_id", value: "ABC123") == "ABC123")
        #expect(try AppSettings.parse(key: "apns_team.TEAM1.topics", value: "com.a,com.a.voip") == "com.a,com.a.voip")
        for (key, value) in [
            ("apns_team.TEAM1.key_id", "a b"), ("apns_team.TEAM1.topics", "com.a,bad topic"),
            ("apns_team.TEAM1.topics", " , "), ("apns_team.TE/AM.key_id", "K"), ("apns_team.TEAM1.secret", "x"),
            ("apns_team.key_id", "K"), ("apns_team.T.x.key_id", "K"),
        ] {
            let error = #expect(throws: LeanError.self) { try AppSettings.parse(key: key, value: value) }
            #expect(error?.code == 1)
            #expect(error?.message.contains(key) == true, "\(key): \(error?.message ?? "")")
        }
    }
}
