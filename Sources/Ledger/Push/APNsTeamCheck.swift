import Foundation
import Postgres
import PushCore

/// Seed 001's rule for an app with APNs keys of several teams, checked when a push is requested: every iOS
/// device it reaches must be told to one team (`APNsTeams.choose`), else the push is refused (code 1, naming
/// the teams) and nothing is recorded. Later saves cannot make an accepted push ambiguous unnoticed either:
/// such a device is an `AmbiguousAPNsTeam` error when it is sent.
enum APNsTeamCheck {
    static func refusal(_ teams: [String]) -> LeanError {
        .invalidParameter(
            "The push reaches iOS devices that APNs teams \(teams.joined(separator: ", ")) could each sign for: "
                + "name one with apns_team_id (its where reaching only that team's devices), "
                + "or save apnsTeamId or apnsTopic on the installations.")
    }

    /// Checks `request` before it is recorded; `listed` are the targets of a `/push/devices` request.
    static func check(
        _ request: PushRequest, app: App, listed: [PushTarget]?, now: Date, on conn: PGConnection
    ) async throws {
        let teams = APNsTeams(settings: app.settings)
        guard teams.hasNamedTeams else { return }
        if let named = request.apnsTeamId, teams.teams[named] == nil {
            throw LeanError.invalidParameter(
                "apns_team_id \(named) is not one of the app's APNs teams (\(teams.teams.keys.sorted().joined(separator: ", ")))."
            )
        }
        guard teams.hasSeveral, request.apnsTeamId == nil,
            (try? PushData(request.data))?.content(for: .ios) != nil
        else { return }
        if let listed {
            for target in listed where target.deviceType == PushPlatform.ios.rawValue {
                let choice = teams.choose(
                    pushTeam: nil, installationTeam: target.apnsTeam, topic: request.topic ?? target.apnsTopic,
                    profile: target.profile ?? request.deviceProfile)
                if case .ambiguous(let among) = choice { throw refusal(among) }
            }
            return
        }
        guard case .query(let whereJSON) = request.audience else { return }
        // The push's own topic tells every device apart when one team holds it; else a device needs its team,
        // a topic only one team holds, or a profile with APNs settings of its own.
        var topicTeams: [String] = teams.teams.keys.sorted()
        if let topic = request.topic {
            switch teams.choose(pushTeam: nil, installationTeam: nil, topic: topic, profile: nil) {
            case .team: return
            case .ambiguous(let among): topicTeams = among
            case .defaultSettings, .unknownTeam: break
            }
        }
        let condition = try PushTargeting.targetCondition(app: app, whereJSON: whereJSON, now: now)
        let topicTellsApart: PGQuery =
            request.topic == nil
            ? "coalesce(data ->> 'apnsTopic', '') = ANY(\(teams.uniqueTopics)::text[])" : "false"
        let profiles = Array(teams.profiles)
        let undecided = try await conn.query(
            """
            SELECT 1 AS one FROM installations
            WHERE \(condition) AND device_type = 'ios' AND coalesce(data ->> 'apnsTeamId', '') = ''
              AND NOT coalesce(coalesce(device_profile, \(request.deviceProfile ?? "")) = ANY(\(profiles)::text[]), false)
              AND NOT (\(topicTellsApart))
            LIMIT 1
            """)
        if !undecided.isEmpty { throw refusal(topicTeams) }
    }
}
