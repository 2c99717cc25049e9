package dev.herald.store.postgres;

import dev.herald.core.session.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned schema migrations for PostgreSQL: SQL files {@code db/postgres/V<n>__<description>.sql},
 * listed in {@link #FILES} in order, applied at open in one transaction (PostgreSQL's DDL is
 * transactional: a failing migration leaves nothing behind) and recorded in {@code schema_version}.
 * A database written by a newer Herald (a higher version than the last file) is refused untouched.
 *
 * <p>Several Herald processes may open one database at the same moment: an advisory lock held for the
 * migration's transaction lets one of them migrate while the others wait, then find nothing to do.
 *
 * <p>File rules (as for SQLite): statements end with {@code ;} at the end of a line; {@code --} starts a
 * comment to the end of the line (so no {@code --} inside string literals, and no function bodies).
 */
final class PgMigrations {
    private static final Logger log = LoggerFactory.getLogger(PgMigrations.class);
    private static final String DIR = "/db/postgres/";
    /** Every migration, oldest first. Add new files at the end; never edit a released one. */
    static final List<String> FILES = List.of("V1__initial_schema.sql");
    /** The advisory lock that serializes migrations of one database ("HERALD" in ASCII). */
    static final long LOCK = 0x48_45_52_41_4C_44L;
    private static final Pattern NAME = Pattern.compile("V(\\d+)__(\\w+)\\.sql");

    record Migration(int version, String description, String file) {
    }

    private PgMigrations() {
    }

    /** The newest schema version this Herald knows. */
    static int latest() {
        return all().getLast().version();
    }

    /**
     * Brings the database to the latest version inside the caller's transaction and returns the version it
     * had before.
     *
     * @throws StoreException when the database was written by a newer schema version
     */
    static int apply(PgConn c, String where, Clock clock) throws SQLException {
        List<Migration> migrations = all();
        int latest = migrations.getLast().version();
        c.exec("SELECT pg_advisory_xact_lock(" + LOCK + ")");
        c.exec("""
                CREATE TABLE IF NOT EXISTS schema_version (
                    version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at BIGINT NOT NULL)""");
        int current = (int) c.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_version");
        if (current > latest) {
            throw StoreException.unavailable(where + " was written by schema version " + current + ", this Herald knows up to "
                    + latest + "; upgrade Herald or restore a backup", null, false);
        }
        for (Migration m : migrations) {
            if (m.version() > current) {
                for (String statement : statements(m.file())) {
                    c.exec(statement);
                }
                c.update("INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                        m.version(), m.description(), Micros.of(Micros.now(clock)));
                log.info("store - {}: applied schema migration {}", where, m.file());
            }
        }
        return current;
    }

    static List<Migration> all() {
        List<Migration> out = new ArrayList<>(FILES.size());
        for (String file : FILES) {
            Matcher m = NAME.matcher(file);
            if (!m.matches()) {
                throw new IllegalStateException("store - migration file name " + file + " does not match V<n>__<description>.sql");
            }
            int version = Integer.parseInt(m.group(1));
            if (version != out.size() + 1) {
                throw new IllegalStateException("store - migration " + file + " has version " + version + ", expected " + (out.size() + 1));
            }
            out.add(new Migration(version, m.group(2).replace('_', ' '), file));
        }
        return out;
    }

    /** The statements of one migration file, comments removed. */
    static List<String> statements(String file) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : read(file).split("\n")) {
            int comment = line.indexOf("--");
            String code = (comment >= 0 ? line.substring(0, comment) : line).stripTrailing();
            if (code.isBlank()) {
                continue;
            }
            current.append(code).append('\n');
            if (code.endsWith(";")) {
                out.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalStateException("store - migration " + file + " ends with a statement without ';'");
        }
        return out;
    }

    private static String read(String file) {
        try (InputStream in = PgMigrations.class.getResourceAsStream(DIR + file)) {
            if (in == null) {
                throw new IllegalStateException("store - migration " + DIR + file + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("store - reading migration " + file + " failed", e);
        }
    }
}
