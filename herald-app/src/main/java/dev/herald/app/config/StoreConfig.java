package dev.herald.app.config;

import dev.herald.store.postgres.JdbcUrl;
import java.nio.file.Path;

/**
 * {@code store:} where conversations are kept: one SQLite file (the default), or a PostgreSQL database when
 * {@link #url()} is set. For SQLite, after loading, {@link #path()} is absolute ({@code $HERALD_HOME/herald.db}
 * unless set; a relative path is taken from {@code $HERALD_HOME}); for PostgreSQL it stays unset.
 *
 * <p>The PostgreSQL password is a {@link Secret} (write {@code password: ${HERALD_STORE_PASSWORD}}); it is never
 * printed, and a URL that carries one in its properties is refused so that {@code herald config check} never
 * shows it either. Messages name the URL's key, never its value.
 */
public record StoreConfig(
        @Doc("SQLite database file; relative paths are inside $HERALD_HOME; not set = $HERALD_HOME/herald.db (unless url is set)")
        Path path,
        @Doc("PostgreSQL JDBC URL, e.g. jdbc:postgresql://localhost:5432/herald; when set, Herald keeps its data there instead of SQLite")
        String url,
        @Doc("PostgreSQL user (with url)")
        String user,
        @Doc("PostgreSQL password (with url), e.g. ${HERALD_STORE_PASSWORD}")
        Secret password) implements Validated {

    public StoreConfig {
        url = blankToNull(url);
        user = blankToNull(user);
        password = password == null ? Secret.NONE : password;
    }

    public static StoreConfig defaults() {
        return new StoreConfig(null, null, null, Secret.NONE);
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
    }

    /** This store with its SQLite path made absolute against {@code home}; a PostgreSQL store has no path. */
    public StoreConfig resolvedIn(Path home) {
        if (postgres()) {
            return this;
        }
        Path p = path == null ? home.resolve("herald.db") : home.resolve(path);
        return new StoreConfig(p.toAbsolutePath().normalize(), url, user, password);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
