-- Herald's PostgreSQL schema, version 14: chat identities (<platform>:<user id>) linked to web accounts, and the one-time
-- codes /link gives in a chat to link one (only a code's SHA-256 is kept). New tables, so a node of the previous version
-- keeps working on this schema; the memories an account's API keys kept move to the account's key (last statement).
CREATE TABLE identity_links (
    identity  TEXT COLLATE "C" PRIMARY KEY,
    account   TEXT COLLATE "C" NOT NULL,
    linked_at BIGINT NOT NULL
);
CREATE INDEX identity_links_account ON identity_links (account);
CREATE TABLE link_codes (
    code_hash  TEXT COLLATE "C" PRIMARY KEY,
    identity   TEXT COLLATE "C" NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX link_codes_identity ON link_codes (identity);
-- A web account's memory is one, under its own key: facts its API keys' turns kept under api_server:u:<name> move there.
UPDATE memories SET owner = 'webchat:' || substr(owner, 12) WHERE substr(owner, 1, 13) = 'api_server:u:';
