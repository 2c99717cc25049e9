/**
 * What the SQLite ({@code dev.herald.store.sqlite}) and PostgreSQL ({@code dev.herald.store.postgres}) stores
 * share: the stores' behaviour written once ({@link dev.herald.store.jdbc.JdbcSessionStore},
 * {@link dev.herald.store.jdbc.JdbcTranscriptStore}, {@link dev.herald.store.jdbc.JdbcTurnStore}), the tables'
 * columns, row decoding and identical statements ({@link dev.herald.store.jdbc.SessionTable},
 * {@link dev.herald.store.jdbc.TranscriptTables}), the stored forms ({@link dev.herald.store.jdbc.Json},
 * {@link dev.herald.store.jdbc.Micros}), a connection's statement shapes ({@link dev.herald.store.jdbc.JdbcConn})
 * and the migration runner ({@link dev.herald.store.jdbc.SchemaMigrations}).
 *
 * <p>Internal to herald-store: the types are public only so that the two dialect packages can use them. Each
 * dialect keeps what differs: its SQL where the text differs (flags as 0/1 or booleans, row locks), how it
 * runs work (SQLite's single writer thread and readers, PostgreSQL's pool with retries), how it claims ids
 * and locks rows, and its connection set-up.
 */
package dev.herald.store.jdbc;
