package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.SchemaMigrations;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;

/**
 * Versioned schema migrations for SQLite: SQL files {@code db/sqlite/V<n>__<description>.sql}, listed in
 * {@link #FILES} in order, applied at open in one {@code BEGIN IMMEDIATE} transaction (which also keeps
 * other processes from migrating at the same time) and recorded in {@code schema_version}. The runner and
 * the file rules are {@link SchemaMigrations}'.
 */
final class Migrations {
    /** Every migration, oldest first. Add new files at the end; never edit a released one. */
    static final List<String> FILES = List.of("V1__initial_schema.sql", "V2__session_search.sql", "V3__suspend_reason.sql",
            "V4__delivery_attempts.sql", "V5__turn_usage.sql", "V6__conversation_title.sql", "V7__session_models.sql",
            "V8__turn_lifecycle.sql", "V9__schedules.sql", "V10__nodes.sql", "V11__schedule_job_options.sql", "V12__unfinished_turns_index.sql",
            "V13__attachments.sql", "V14__chat_preferences.sql",
            "V15__transcript_title.sql", "V16__accounts.sql", "V17__memories.sql", "V18__identity_links.sql");
    private static final SchemaMigrations SCHEMA = new SchemaMigrations(Migrations.class, "/db/sqlite/", FILES, "INTEGER");

    private Migrations() {
    }

    /** The newest schema version this Herald knows. */
    static int latest() {
        return SCHEMA.latest();
    }

    /**
     * Brings the database to the latest version and returns the version it had before.
     *
     * @throws StoreException when the database was written by a newer schema version
     */
    static int apply(SqlConn c, Path file, Clock clock) throws SQLException {
        c.exec("BEGIN IMMEDIATE");
        try {
            int before = SCHEMA.apply(c, file.toString(), clock);
            c.exec("COMMIT");
            return before;
        } catch (SQLException | RuntimeException e) {
            try {
                c.exec("ROLLBACK");
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
    }

    /** The statements of one migration file, comments removed. */
    static List<String> statements(String file) {
        return SCHEMA.statements(file);
    }
}
