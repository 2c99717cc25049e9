package dev.herald.app.runtime;

import dev.herald.app.config.StoreConfig;
import dev.herald.core.session.Storage;
import dev.herald.store.postgres.PostgresOptions;
import dev.herald.store.postgres.PostgresStorage;
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
     * Opens (and migrates) the configured store.
     *
     * @param config the validated and resolved {@code store:} section
     * @throws dev.herald.core.session.StoreException when it cannot be opened; the message names the database
     *                                                 without credentials
     */
    public static Storage open(StoreConfig config, Clock clock) {
        if (config.postgres()) {
            return PostgresStorage.open(PostgresOptions.of(config.url(), config.user(), config.password().reveal().orElse(null)), clock);
        }
        return SqliteStorage.open(config.path(), clock);
    }

    /**
     * Opens the configured store for the gateway of this process. A PostgreSQL database is claimed for as long
     * as the store is open, so that a second gateway on it is refused at start-up (two gateways would take each
     * other's running turns for crashed ones). A SQLite file belongs to its Herald home, whose pid file already
     * keeps a second gateway out.
     */
    public static Storage openForGateway(StoreConfig config, Clock clock) {
        Storage storage = open(config, clock);
        if (storage instanceof PostgresStorage postgres) {
            try {
                postgres.claimForGateway();
            } catch (RuntimeException e) {
                storage.close();
                throw e;
            }
        }
        return storage;
    }
}
