package dev.herald.store.ops;

import dev.herald.core.schedule.Job;
import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.JdbcScheduleStore;
import dev.herald.store.postgres.PostgresOptions;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

/**
 * Reads the scheduled jobs of a store for {@code herald schedule list}, on a read-only connection of its own, so a
 * gateway may keep running. A store that predates scheduled jobs has none.
 */
public final class ScheduledJobs {
    private ScheduledJobs() {
    }

    /** The jobs of the Herald SQLite file {@code file}. */
    public static List<Job> sqlite(Path file) {
        try (PlainConn conn = SqliteFiles.readOnly(file)) {
            if (!conn.exists("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schedule_jobs'")) {
                return List.of();
            }
            return read(conn, file.toString(), "SELECT 1 FROM pragma_table_info('schedule_jobs') WHERE name = 'model'");
        } catch (SQLException e) {
            throw StoreException.unavailable("reading scheduled jobs from " + file + " failed", e, false);
        }
    }

    /** The jobs of the PostgreSQL database {@code options} name. */
    public static List<Job> postgres(PostgresOptions options) {
        Properties login = new Properties();
        if (options.user() != null) {
            login.setProperty("user", options.user());
        }
        if (options.password() != null) {
            login.setProperty("password", options.password());
        }
        login.setProperty("ApplicationName", "herald-schedule");
        login.setProperty("readOnly", "true");
        try (PlainConn conn = new PlainConn(DriverManager.getConnection(options.url(), login))) {
            if (!conn.exists("SELECT 1 FROM information_schema.tables WHERE table_name = 'schedule_jobs'")) {
                return List.of();
            }
            return read(conn, options.describe(),
                    "SELECT 1 FROM information_schema.columns WHERE table_name = 'schedule_jobs' AND column_name = 'model'");
        } catch (SQLException e) {
            // the driver's message never holds the password; the URL is not repeated
            throw StoreException.unavailable(options.describe() + " could not be read (SQL state " + e.getSQLState() + ")", null, false);
        }
    }

    /** The jobs, with their model and tools when the schema has them ({@code hasOptions} asks, as SQL). */
    private static List<Job> read(PlainConn conn, String where, String hasOptions) {
        try {
            return JdbcScheduleStore.list(conn, conn.exists(hasOptions));
        } catch (SQLException e) {
            throw StoreException.unavailable("reading jobs from " + where + " failed", e, false);
        }
    }
}
