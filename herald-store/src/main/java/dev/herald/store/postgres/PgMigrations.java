package dev.herald.store.postgres;

import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.SchemaMigrations;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;

/**
 * Versioned schema migrations for PostgreSQL: SQL files {@code db/postgres/V<n>__<description>.sql},
 * listed in {@link #FILES} in order, applied at open in one transaction (PostgreSQL's DDL is
 * transactional: a failing migration leaves nothing behind) and recorded in {@code schema_version}. The
 * runner and the file rules are {@link SchemaMigrations}'.
 *
 * <p>Several Herald processes may open one database at the same moment: an advisory lock held for the
 * migration's transaction lets one of them migrate while the others wait, then find nothing to do.
 */
final class PgMigrations {
    /** Every migration, oldest first. Add new files at the end; never edit a released one. */
    static final List<String> FILES = List.of("V1__initial_schema.sql", "V2__conversation_title.sql", "V3__session_models.sql",
            "V4__turn_lifecycle.sql", "V5__schedules.sql", "V6__nodes.sql", "V7__schedule_job_options.sql", "V8__unfinished_turns_index.sql",
            "V9__attachments.sql", "V10__chat_preferences.sql",
            "V11__transcript_title.sql", "V12__accounts.sql", "V13__memories.sql", "V14__identity_links.sql");
    /** The advisory lock that serializes migrations of one database ("HERALD" in ASCII). */
    static final long LOCK = 0x48_45_52_41_4C_44L;
    private static final SchemaMigrations SCHEMA = new SchemaMigrations(PgMigrations.class, "/db/postgres/", FILES, "BIGINT");

    private PgMigrations() {
    }

    /** The newest schema version this Herald knows. */
    static int latest() {
        return SCHEMA.latest();
    }

    /**
     * Brings the database to the latest version inside the caller's transaction and returns the version it
     * had before.
     *
     * @throws StoreException when the database was written by a newer schema version
     */
    static int apply(PgConn c, String where, Clock clock) throws SQLException {
        c.exec("SELECT pg_advisory_xact_lock(" + LOCK + ")");
        return SCHEMA.apply(c, where, clock);
    }

    /** Every migration, oldest first. */
    static List<SchemaMigrations.Migration> all() {
        return SCHEMA.all();
    }

    /** The statements of one migration file, comments removed. */
    static List<String> statements(String file) {
        return SCHEMA.statements(file);
    }
}
