import Foundation
import Postgres
import PushCore

/// `_User` beyond an ordinary class (SPEC §12.5): unique usernames, and the secrets kept outside the log in
/// `user_credentials` and `user_sessions` (migration 0022), written in the same transaction as the user's
/// event. This layer only ever sees hashes: the API hashes passwords (scrypt) and session tokens (SHA-256)
/// before calling, so no secret reaches a statement, a table or an event.
extension ObjectCommands {
    /// A password hash for a new or changed password, and the hash of the session token to start with it.
    public struct NewCredentials: Sendable {
        public let passwordHash: String
        public let sessionHash: String

        public init(passwordHash: String, sessionHash: String) {
            self.passwordHash = passwordHash
            self.sessionHash = sessionHash
        }
    }

    /// Sign-up: a `_User` (its `UserSignedUp` event) with its credentials and first session. Without
    /// `credentials` (the master key creating a user who cannot log in) it is an ordinary create.
    public func signUp(
        appId: String, body: [String: JSON], credentials: NewCredentials?, metadata: EventMetadata, now: Date? = nil
    ) async throws -> Created {
        let now = now ?? store.clock.now()
        let at = LeanDate.format(now)
        return try await store.write(appId: appId, metadata: metadata, lockKeys: []) { tx in
            let created = try await Self.appendCreate(className: ClassName.user, body: body, at: at, tx: tx)
            if let credentials {
                guard let username = body["username"]?.stringValue else { throw LeanError.usernameMissing }
                try await Self.storeCredentials(
                    credentials, username: username, of: created.objectId, at: now, tx: tx)
            }
            return created
        }
    }

    /// PUT of a `_User` by the master key or the user's own session (code 206 otherwise). A new password
    /// replaces the hash and ends every session of the user but the one `credentials` starts.
    public func updateUser(
        appId: String, objectId: String, body: [String: JSON], credentials: NewCredentials?, writer: Writer,
        metadata: EventMetadata, now: Date? = nil
    ) async throws -> String {
        guard writer == .master || writer.userId == objectId else { throw LeanError.userNeedsSession }
        let now = now ?? store.clock.now()
        let at = LeanDate.format(now)
        let stream = ObjectEvent.stream(className: ClassName.user, objectId: objectId)
        return try await store.write(appId: appId, metadata: metadata, lockKeys: [stream]) { tx in
            guard let current = try await StoredObject.load(ClassName.user, objectId, appId: appId, on: tx.connection)
            else {
                throw LeanError.notFound()
            }
            let fields = try await Self.appendUpdate(current, body: body, at: at, tx: tx)
            if let credentials {
                guard let username = fields["username"]?.stringValue else { throw LeanError.usernameMissing }
                try await Self.forgetSecrets(of: objectId, tx: tx)
                try await Self.storeCredentials(credentials, username: username, of: objectId, at: now, tx: tx)
            }
            return at
        }
    }

    /// A login's session, or with `replacingOthers` a refresh's: every other session of the user ends in the
    /// same transaction, so a refreshed-away token never works again.
    public func startSession(
        appId: String, userId: String, sessionHash: String, replacingOthers: Bool, now: Date? = nil
    ) async throws {
        let now = now ?? store.clock.now()
        try await store.pool.withTransaction { conn in
            if replacingOthers {
                try await conn.enqueue(
                    "DELETE FROM user_sessions WHERE app_id = \(appId) AND user_id = \(userId)")
            }
            try await conn.query(Self.insertSession(appId: appId, userId: userId, sessionHash: sessionHash, at: now))
        }
    }

    /// A `_User`'s username is unique in its app (code 202) and a non-empty string (code 200); a user who can
    /// log in keeps one. Taken under a lock per username, so two sign-ups of one name cannot both pass.
    static func claimUsername(_ update: ObjectUpdate, of objectId: String, tx: LedgerTransaction) async throws {
        if update.unset.contains("username") {
            let rows = try await tx.connection.query(
                .reusingPlan(
                    "SELECT 1 FROM user_credentials WHERE app_id = \(tx.appId) AND user_id = \(objectId)"))
            if !rows.isEmpty { throw LeanError.usernameMissing }
        }
        guard let value = update.set["username"] else { return }
        guard let username = value.stringValue, !username.isEmpty else { throw LeanError.usernameMissing }
        try await tx.lock(["username:\(username)"])
        let taken = try await tx.connection.query(
            .reusingPlan(
                """
                SELECT 1 FROM objects
                WHERE app_id = \(tx.appId) AND class_name = \(ClassName.user)
                  AND data @> jsonb_build_object('username', \(username)::text) AND object_id <> \(objectId)
                """))
        if !taken.isEmpty { throw LeanError.usernameTaken }
        try await tx.connection.enqueue(
            .reusingPlan(
                """
                UPDATE user_credentials SET username = \(username)
                WHERE app_id = \(tx.appId) AND user_id = \(objectId)
                """))
    }

    static func storeCredentials(
        _ credentials: NewCredentials, username: String, of userId: String, at now: Date, tx: LedgerTransaction
    ) async throws {
        try await tx.connection.enqueue(
            .reusingPlan(
                """
                INSERT INTO user_credentials (app_id, user_id, username, password_hash)
                VALUES (\(tx.appId), \(userId), \(username), \(credentials.passwordHash))
                """))
        try await tx.connection.query(
            insertSession(appId: tx.appId, userId: userId, sessionHash: credentials.sessionHash, at: now))
    }

    /// A deleted user, or one whose password changes, keeps no credentials and no sessions.
    static func forgetSecrets(of userId: String, tx: LedgerTransaction) async throws {
        try await tx.connection.enqueue(
            "DELETE FROM user_credentials WHERE app_id = \(tx.appId) AND user_id = \(userId)")
        try await tx.connection.enqueue(
            "DELETE FROM user_sessions WHERE app_id = \(tx.appId) AND user_id = \(userId)")
    }

    static func insertSession(appId: String, userId: String, sessionHash: String, at now: Date) -> PGQuery {
        .reusingPlan(
            """
            INSERT INTO user_sessions (app_id, token_hash, user_id, created_at)
            VALUES (\(appId), \(sessionHash), \(userId), \(now)::timestamptz)
            """)
    }
}
