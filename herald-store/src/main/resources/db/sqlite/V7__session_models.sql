-- Herald's SQLite schema, version 7: the model profile a lane chose with /model (lanes without a row use the default).
CREATE TABLE session_models (
    session_key TEXT NOT NULL PRIMARY KEY,
    profile     TEXT NOT NULL,
    chosen_at   INTEGER NOT NULL
);
