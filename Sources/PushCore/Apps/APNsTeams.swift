import Foundation

/// The APNs signing keys of an app by Apple team (seed 001, SPEC §12.6): the default key
/// (`apns.key_file`, `apns.key_id`, `apns.team_id`, its topic `apns.topic`) and each
/// `apns_team.<team>.key_file` / `.key_id` / `.topics` (comma-separated bundle ids). Device profiles
/// (`apns.<profile>.*`) are a separate thing and win over teams: a device whose profile has APNs settings
/// uses them.
///
/// Which team signs for a device (`choose`): the push's `apns_team_id`; else the installation's
/// `apnsTeamId`; else the one team whose topics hold the topic (the push's `topic`, else the installation's
/// `apnsTopic`); else the app's only team. A device none of these tells apart is `ambiguous`, and a push
/// with such devices is refused when it is requested (`PushCommands.request`).
public struct APNsTeams: Sendable, Hashable {
    public struct Team: Sendable, Hashable {
        public let id: String
        public let keyFile: String
        public let keyId: String
        /// The bundle ids of the team's apps, the first the team's default topic.
        public let topics: [String]
    }

    public enum Choice: Sendable, Hashable {
        /// The app has no `apns_team.*` keys, or the device's profile has APNs settings: those settings apply
        /// (`apns.*` or `apns.<profile>.*`), as before teams.
        case defaultSettings
        case team(Team)
        /// The push or the installation names a team the app has no key for.
        case unknownTeam(String)
        /// Several teams could sign for the device (their ids, sorted).
        case ambiguous([String])
    }

    /// The setting prefix of the teams' keys, distinct from `apns.` and its profiles.
    public static let settingPrefix = "apns_team."
    /// The keys under `apns_team.<team>.`.
    public static let keys: Set<String> = ["key_file", "key_id", "topics"]

    /// By team id.
    public let teams: [String: Team]
    /// Whether a team of `apns_team.<team>.*` has its key: only then do teams choose a device's key.
    public let hasNamedTeams: Bool
    /// The device profiles with APNs settings of their own (`apns.<profile>.*`), which win over teams.
    public let profiles: Set<String>

    public init(settings: [String: JSON]) {
        var teams: [String: Team] = [:]
        func string(_ key: String) -> String? {
            guard let value = settings[key]?.stringValue, !value.isEmpty else { return nil }
            return value
        }
        if let keyFile = string("apns.key_file"), let keyId = string("apns.key_id"), let id = string("apns.team_id") {
            teams[id] = Team(id: id, keyFile: keyFile, keyId: keyId, topics: string("apns.topic").map { [$0] } ?? [])
        }
        let named = Set(
            settings.keys.compactMap { key -> String? in
                guard key.hasPrefix(Self.settingPrefix) else { return nil }
                return key.dropFirst(Self.settingPrefix.count).split(separator: ".").first.map(String.init)
            })
        var complete = false
        for id in named {
            let prefix = Self.settingPrefix + id + "."
            // A team without its key file and key id is no team yet (`app set` takes one key at a time).
            guard let keyFile = string(prefix + "key_file"), let keyId = string(prefix + "key_id") else { continue }
            teams[id] = Team(id: id, keyFile: keyFile, keyId: keyId, topics: Self.topics(string(prefix + "topics")))
            complete = true
        }
        self.teams = teams
        hasNamedTeams = complete
        profiles = Set(
            settings.keys.compactMap { key -> String? in
                let parts = key.split(separator: ".", omittingEmptySubsequences: false)
                return parts.count == 3 && parts[0] == "apns" ? String(parts[1]) : nil
            })
    }

    /// `apns_team.<team>.topics`' list: comma-separated, blanks dropped.
    public static func topics(_ setting: String?) -> [String] {
        (setting ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether devices can need telling apart: only with keys of more than one team.
    public var hasSeveral: Bool { hasNamedTeams && teams.count > 1 }

    /// The team that signs for a device (see the type's rules).
    /// - Parameter profile: the device's profile (or the push's `device_profile`).
    public func choose(pushTeam: String?, installationTeam: String?, topic: String?, profile: String?) -> Choice {
        // Without `apns_team.*` keys the default settings apply, whatever the push or the device says; a
        // profile with APNs settings of its own keeps them.
        guard hasNamedTeams, !profiles.contains(profile ?? "") else { return .defaultSettings }
        if let named = nonEmpty(pushTeam) ?? nonEmpty(installationTeam) {
            return teams[named].map(Choice.team) ?? .unknownTeam(named)
        }
        if let topic = nonEmpty(topic) {
            let holding = teams.values.filter { $0.topics.contains(topic) }
            if holding.count == 1 { return .team(holding[0]) }
            if holding.count > 1 { return .ambiguous(holding.map(\.id).sorted()) }
        }
        if teams.count == 1, let only = teams.values.first { return .team(only) }
        return .ambiguous(teams.keys.sorted())
    }

    /// The topics that exactly one team holds: a device with one of them as its topic needs no team id.
    public var uniqueTopics: [String] {
        var holders: [String: Int] = [:]
        for team in teams.values { for topic in Set(team.topics) { holders[topic, default: 0] += 1 } }
        return holders.filter { $0.value == 1 }.map(\.key).sorted()
    }

    private func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
