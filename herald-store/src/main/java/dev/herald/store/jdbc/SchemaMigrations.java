package dev.herald.store.jdbc;

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
 * One dialect's versioned schema migrations: SQL files {@code <dir>V<n>__<description>.sql} on the class
 * path, listed in order, applied inside the caller's transaction and recorded in {@code schema_version}.
 * A database written by a newer Herald (a higher version than the last file) is refused untouched. How
 * the transaction is opened and guarded against other processes is the dialect's part.
 *
 * <p>File rules: statements end with {@code ;} at the end of a line; {@code --} starts a comment to the
 * end of the line (so no {@code --} inside string literals, and no triggers or function bodies).
 */
public final class SchemaMigrations {
    private static final Pattern NAME = Pattern.compile("V(\\d+)__(\\w+)\\.sql");

    /** One migration file and the version it brings the schema to. */
    public record Migration(int version, String description, String file) {
    }

    private final Class<?> owner;
    private final Logger log;
    private final String dir;
    private final List<String> files;
    private final String versionTable;

    /**
     * @param owner     the dialect's migration class: its logger reports applied migrations
     * @param dir       the class-path folder of the files, with leading and trailing {@code /}
     * @param files     every migration file, oldest first
     * @param bigInteger the dialect's name for a 64-bit integer column type (for {@code applied_at})
     */
    public SchemaMigrations(Class<?> owner, String dir, List<String> files, String bigInteger) {
        this.owner = owner;
        this.log = LoggerFactory.getLogger(owner);
        this.dir = dir;
        this.files = List.copyOf(files);
        this.versionTable = """
                CREATE TABLE IF NOT EXISTS schema_version (
                    version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at %s NOT NULL)""".formatted(bigInteger);
    }

    /** The newest schema version this Herald knows. */
    public int latest() {
        return all().getLast().version();
    }

    /**
     * Brings the database to the latest version inside the caller's transaction and returns the version
     * it had before.
     *
     * @param where the database as messages name it (a file, or {@code postgresql host:port/db})
     * @throws StoreException when the database was written by a newer schema version
     */
    public int apply(JdbcConn c, String where, Clock clock) throws SQLException {
        List<Migration> migrations = all();
        int latest = migrations.getLast().version();
        c.exec(versionTable);
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

    /** Every migration, oldest first, numbered from 1 without gaps. */
    public List<Migration> all() {
        List<Migration> out = new ArrayList<>(files.size());
        for (String file : files) {
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
    public List<String> statements(String file) {
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

    private String read(String file) {
        try (InputStream in = owner.getResourceAsStream(dir + file)) {
            if (in == null) {
                throw new IllegalStateException("store - migration " + dir + file + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("store - reading migration " + file + " failed", e);
        }
    }
}
