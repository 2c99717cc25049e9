package dev.herald.store;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.store.jdbc.StoreOutage;
import dev.herald.store.postgres.JdbcUrl;
import dev.herald.store.sqlite.SqliteOptions;
import java.nio.file.Path;

/**
 * {@code store:} where conversations are kept: one SQLite file (the default), or a PostgreSQL database when
 * {@link #url()} is set. For SQLite, after loading, {@link #path()} is absolute ({@code $HERALD_HOME/herald.db}
 * unless set; a relative path is taken from {@code $HERALD_HOME}); for PostgreSQL it stays unset.
 *
 * <p>The PostgreSQL password is a {@link Secret} (write {@code password: ${HERALD_STORE_PASSWORD}}); it is never
 * printed, and a URL that carries one in its properties is refused so that {@code herald config check} never
 * shows it either. Messages name the URL's key, never its value.
 *
 * <p>Outages: while the store cannot write (a full disk, an unreachable database), a store call waits up to
 * {@link #outageWaitSeconds} for it (running turns pause, then go on) and new messages are not taken. The low-space
 * warning ({@link #lowSpaceWarningMb}) is for the SQLite file's disk; a PostgreSQL server watches its own.
 *
 * <p>The configuration loader binds the section straight into this record; its defaults are the stores' own
 * ({@link StoreOutage#DEFAULT_WAIT}, {@link SqliteOptions#DEFAULT_LOW_SPACE_BYTES}).
 */
public record StoreConfig(
        @Doc("SQLite database file; relative paths are inside $HERALD_HOME; not set = $HERALD_HOME/herald.db (unless url is set)")
        Path path,
        @Doc("PostgreSQL JDBC URL, e.g. jdbc:postgresql://localhost:5432/herald; when set, Herald keeps its data there instead of SQLite")
        String url,
        @Doc("PostgreSQL user (with url)")
        String user,
        @Doc("PostgreSQL password (with url), e.g. ${HERALD_STORE_PASSWORD}")
        Secret password,
        @Doc("seconds a store call waits, retrying, while the store cannot write (disk full, database unreachable) before it "
                + "fails; running turns pause meanwhile, and a turn cut off after it is resumed once the store is back")
        int outageWaitSeconds,
        @Doc("MiB free on the SQLite database's disk under which Herald warns (logged once, shown on the admin page); 0 = no warning")
        long lowSpaceWarningMb) implements Validated {

    /** Seconds a store call waits for a store that cannot write, by default. */
    public static final int DEFAULT_OUTAGE_WAIT_SECONDS = (int) StoreOutage.DEFAULT_WAIT.toSeconds();
    /** The low-space warning's threshold by default, in MiB. */
    public static final long DEFAULT_LOW_SPACE_WARNING_MB = SqliteOptions.DEFAULT_LOW_SPACE_BYTES / (1024 * 1024);

    public StoreConfig {
        url = blankToNull(url);
        user = blankToNull(user);
        password = password == null ? Secret.NONE : password;
    }

    public StoreConfig(Path path, String url, String user, Secret password) {
        this(path, url, user, password, DEFAULT_OUTAGE_WAIT_SECONDS, DEFAULT_LOW_SPACE_WARNING_MB);
    }

    public static StoreConfig defaults() {
        return new StoreConfig(null, null, null, Secret.NONE, DEFAULT_OUTAGE_WAIT_SECONDS, DEFAULT_LOW_SPACE_WARNING_MB);
    }

    /** How long a store call waits for a store that cannot write. */
    public java.time.Duration outageWait() {
        return java.time.Duration.ofSeconds(outageWaitSeconds);
    }

    /** The low-space warning's threshold in bytes (0: none). */
    public long lowSpaceWarningBytes() {
        return lowSpaceWarningMb * 1024 * 1024;
    }

    /** True when Herald keeps its data in PostgreSQL ({@code store.url} is set) rather than in a SQLite file. */
    public boolean postgres() {
        return url != null;
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(path == null || !path.toString().startsWith("~"), "path",
                "must not start with ~ (it is not expanded), was \"" + path + "\"; write ${HOME}/... or a path relative to $HERALD_HOME");
        check.require(path == null || url == null, "url", "and " + check.path("path") + " are both set; set " + check.path("path")
                + " to keep data in a SQLite file, or " + check.path("url") + " to keep it in PostgreSQL, not both");
        check.require(url == null || JdbcUrl.valid(url), "url", "must be a PostgreSQL JDBC URL such as "
                + "jdbc:postgresql://localhost:5432/herald (jdbc:postgresql://host[:port]/database[?properties])");
        check.require(url == null || !JdbcUrl.carriesPassword(url), "url", "must not carry the password; remove password=... from it and set "
                + check.path("password") + " (e.g. password: ${HERALD_STORE_PASSWORD})");
        check.require(url != null || user == null, "user", "is set but " + check.path("url") + " is not; the user is for PostgreSQL only");
        check.require(url != null || !password.isSet(), "password", "is set but " + check.path("url")
                + " is not; the password is for PostgreSQL only");
        check.require(outageWaitSeconds >= 0 && outageWaitSeconds <= 3600, "outage_wait_seconds",
                "must be 0..3600 seconds, was " + outageWaitSeconds);
        check.require(lowSpaceWarningMb >= 0 && lowSpaceWarningMb <= 16L * 1024 * 1024, "low_space_warning_mb",
                "must be 0 (no warning) to 16777216 MiB, was " + lowSpaceWarningMb);
    }

    /** This store with its SQLite path made absolute against {@code home}; a PostgreSQL store has no path. */
    public StoreConfig resolvedIn(Path home) {
        if (postgres()) {
            return this;
        }
        Path p = path == null ? home.resolve("herald.db") : home.resolve(path);
        return new StoreConfig(p.toAbsolutePath().normalize(), url, user, password, outageWaitSeconds, lowSpaceWarningMb);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
