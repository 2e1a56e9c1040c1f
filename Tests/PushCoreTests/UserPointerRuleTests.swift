import Testing

@testable import PushCore

@Suite struct UserPointerRuleTests {
    static let token = String(repeating: "ab", count: 32)
    static let otherToken = String(repeating: "cd", count: 32)

    static func user(_ id: String) -> JSON { ["__type": "Pointer", "className": "_User", "objectId": .string(id)] }

    func apply(_ body: [String: JSON], to current: [String: JSON] = [:], as writer: Writer) throws(LeanError) {
        let isCreate = current.isEmpty
        _ = try InstallationUpdate.apply(
            body: isCreate
                ? body.merging(["deviceType": "ios", "deviceToken": .string(Self.token)]) { a, _ in a } : body,
            to: current, isCreate: isCreate, writer: writer)
    }

    @Test func onlyTheSignedInUserOrTheMasterKeyPointsAtAUser() throws {
        let owner: [String: JSON] = ["owner": Self.user("alice")]
        try apply(owner, as: .user(objectId: "alice"))
        try apply(owner, as: .master)
        expectRefused { try apply(owner, as: .client) }
        expectRefused { try apply(owner, as: .user(objectId: "bob")) }
        // Anywhere in the value: an array of pointers, an `__op` adding one, another field's name.
        expectRefused {
            try apply(["friends": ["__op": "AddUnique", "objects": [Self.user("alice")]]], as: .user(objectId: "bob"))
        }
        expectRefused { try apply(["user": .array([Self.user("alice")])], as: .client) }
        // Pointers at other classes are no one's.
        try apply(["team": ["__type": "Pointer", "className": "Team", "objectId": "t1"]], as: .client)
    }

    @Test func anOwnedInstallationChangesOnlyForItsUser() throws {
        let current: [String: JSON] = [
            "deviceType": "ios", "deviceToken": .string(Self.token), "owner": Self.user("alice"),
        ]
        try apply(["badge": 2], to: current, as: .user(objectId: "alice"))
        try apply(["owner": .null], to: current, as: .master)
        expectRefused { try apply(["deviceToken": .string(Self.otherToken)], to: current, as: .client) }
        expectRefused { try apply(["owner": .null], to: current, as: .user(objectId: "bob")) }
        // The SDKs resend the whole object: a save that changes nothing is no change, whoever sends it.
        try apply(
            ["deviceToken": .string(Self.token.uppercased()), "owner": Self.user("alice")], to: current, as: .client)
    }

    /// Refused by this rule (code 119, status 403), not by some other check of the save.
    func expectRefused(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("not refused", sourceLocation: sourceLocation)
        } catch let error as LeanError {
            #expect(
                error.code == .operationForbidden && error.kind == .forbidden, "\(error)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func refusalsAreCode119() {
        #expect(
            throws: LeanError.forbidden(
                "owner may point only at the signed-in user: save it with that user's session or the master key.")
        ) {
            try apply(["owner": Self.user("alice")], as: .client)
        }
    }
}
