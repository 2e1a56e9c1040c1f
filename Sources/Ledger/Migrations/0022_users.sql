-- The secrets of _User (SPEC §7, §12.5): a password's salted scrypt hash and the hashes of session tokens. They
-- are not events and no projection's tables: `rebuild` leaves them alone and `--verify` does not compare them,
-- so a log that is shared, replayed or exported never carries a credential. Written in the same transaction as
-- the UserSignedUp / UserUpdated / ObjectDeleted event they go with, so neither exists without the other.
CREATE TABLE user_credentials (
    app_id text NOT NULL,
    user_id text NOT NULL,
    username text NOT NULL,
    password_hash text NOT NULL,
    PRIMARY KEY (app_id, user_id),
    UNIQUE (app_id, username)
);

-- One row per session (a sign-up, a login, a refresh). Tokens are 32 random characters, so their SHA-256 is
-- enough to find them and useless to whoever reads the table.
CREATE TABLE user_sessions (
    app_id text NOT NULL,
    token_hash text NOT NULL,
    user_id text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (app_id, token_hash)
);
CREATE INDEX user_sessions_user ON user_sessions (app_id, user_id);
