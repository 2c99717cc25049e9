package dev.herald.app.runtime;

import dev.herald.store.StoreConfig;
import dev.herald.core.session.Storage;
import dev.herald.store.StoreOwner;
import dev.herald.store.postgres.PostgresOptions;
import dev.herald.store.postgres.PostgresOwner;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.sqlite.SqliteOwner;
import dev.herald.store.sqlite.SqliteOptions;
import dev.herald.store.sqlite.SqliteStorage;
import java.time.Clock;

/**
 * Opens the store the configuration names: PostgreSQL when {@code store.url} is set, else the SQLite file at
 * {@code store.path}. The one place that chooses, so that every part of Herald that opens the configured store
 * gets the same one.
 */
public final class Stores {
    private Stores() {
    }

    /**
     * Opens (and migrates) the configured store, without claiming it: a gateway claims it first with
     * {@link #claim}; tools that only read ({@code herald status}) do not.
     *
     * @param config the validated and resolved {@code store:} section
     * @throws dev.herald.core.session.StoreException when it cannot be opened; the message names the database
     *                                                 without credentials
     */
    public static Storage open(StoreConfig config, Clock clock) {
        if (config.postgres()) {
            return PostgresStorage.open(options(config).withOutageWait(config.outageWait()), clock);
        }
        return SqliteStorage.open(config.path(), clock, SqliteOptions.defaults().withOutageWait(config.outageWait())
                .withLowSpaceWarning(config.lowSpaceWarningBytes()));
    }

    /**
     * Claims the configured store for the gateway of this process, for as long as the returned owner is open: the
     * lock file next to a SQLite database, the advisory lock of a PostgreSQL one. Two gateways on one store would
     * take each other's running turns for crashed ones, so the second one is refused.
     *
     * @throws dev.herald.core.session.StoreException naming the store and the running gateway (its pid) when
     *                                                 another gateway holds it
     */
    public static StoreOwner claim(StoreConfig config) {
        return claim(config, false);
    }

    /**
     * {@link #claim(StoreConfig)}; a node of a cluster ({@code clustered}) takes a shared claim, which the other nodes share
     * and a gateway without clustering is refused (and refuses).
     */
    public static StoreOwner claim(StoreConfig config, boolean clustered) {
        return config.postgres() ? PostgresOwner.claim(options(config), clustered) : SqliteOwner.claim(config.path(), clustered);
    }

    /**
     * {@link #claim(StoreConfig, boolean)} for a process that may take over from another in a restart: while the process
     * named by {@code succession} still runs, it holds the claim, so this one takes it once that process has left.
     */
    public static StoreOwner claim(StoreConfig config, boolean clustered, Succession succession) {
        try {
            return claim(config, clustered);
        } catch (dev.herald.core.session.StoreException e) {
            if (!succession.takingOver()) {
                throw e;
            }
            return new DeferredClaim(config.postgres() ? options(config).describe() : config.path().toString(),
                    () -> claim(config, clustered));
        }
    }

    private static PostgresOptions options(StoreConfig config) {
        return PostgresOptions.of(config.url(), config.user(), config.password().reveal().orElse(null));
    }
}
