package dev.herald.testkit.gateway;

import dev.herald.core.session.Storage;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Opens the store of one Herald process for a test. It is called once per process (again after every simulated
 * restart) with the same home folder, and each call must see the data the earlier ones wrote: a SQLite file in
 * {@code home} (the default in every module's tests), or one embedded PostgreSQL database kept for the whole test.
 * The harness closes every store it opened at the end of the test.
 */
@FunctionalInterface
public interface StorageFactory {

    /** A store on the test's data, reading and writing times from {@code clock}. */
    Storage open(Path home, Clock clock);
}
