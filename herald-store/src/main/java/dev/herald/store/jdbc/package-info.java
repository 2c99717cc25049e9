/**
 * The stores, written once for SQLite ({@code dev.herald.store.sqlite}) and PostgreSQL ({@code dev.herald.store.postgres}):
 * {@link dev.herald.store.jdbc.JdbcSessionStore}, {@link dev.herald.store.jdbc.JdbcTranscriptStore} and
 * {@link dev.herald.store.jdbc.JdbcTurnStore}, each composed with a {@link dev.herald.store.jdbc.Dialect} (the few
 * things that differ: row locks, the insertion-order column, the retry rule for a lost race) and a
 * {@link dev.herald.store.jdbc.Transactions} (how work runs); the tables' columns, row decoding and writing
 * ({@link dev.herald.store.jdbc.SessionTable}, {@link dev.herald.store.jdbc.SessionRows},
 * {@link dev.herald.store.jdbc.TranscriptTables}), the stored forms ({@link dev.herald.store.jdbc.Json},
 * {@link dev.herald.store.jdbc.Micros}), a connection's statement shapes ({@link dev.herald.store.jdbc.JdbcConn}) and
 * the migration runner ({@link dev.herald.store.jdbc.SchemaMigrations}).
 *
 * <p>Internal to herald-store: the types are public only so that the two dialect packages can use them. Each dialect
 * package keeps what differs: its {@code Dialect} value, how it runs work (SQLite's single writer thread and readers,
 * PostgreSQL's pool with retries), its migrations, its connection set-up and its claim on the database.
 */
package dev.herald.store.jdbc;
