-- Herald's PostgreSQL schema, version 2: the model profile a lane chose with /model (lanes without a row use the default).
CREATE TABLE session_models (
    session_key TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    profile     TEXT NOT NULL,
    chosen_at   BIGINT NOT NULL
);
