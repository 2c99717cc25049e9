package dev.herald.app.config;

import java.nio.file.Path;

/**
 * {@code store:} where conversations are kept. Today one SQLite file; after loading, {@link #path()} is
 * absolute ({@code $HERALD_HOME/herald.db} unless set; a relative path is taken from {@code $HERALD_HOME}).
 */
public record StoreConfig(
        @Doc("SQLite database file; relative paths are inside $HERALD_HOME; not set = $HERALD_HOME/herald.db")
        Path path) implements Validated {

    public static StoreConfig defaults() {
        return new StoreConfig(null);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(path == null || !path.toString().startsWith("~"), "path",
                "must not start with ~ (it is not expanded), was \"" + path + "\"; write ${HOME}/... or a path relative to $HERALD_HOME");
    }

    /** This store with its path made absolute against {@code home}. */
    public StoreConfig resolvedIn(Path home) {
        Path p = path == null ? home.resolve("herald.db") : home.resolve(path);
        return new StoreConfig(p.toAbsolutePath().normalize());
    }
}
