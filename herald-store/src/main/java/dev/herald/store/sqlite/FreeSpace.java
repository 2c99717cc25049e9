package dev.herald.store.sqlite;

import dev.herald.store.jdbc.StoreOutage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Warns before the disk is full: while the file system holding the database has less free space than the threshold
 * ({@code store.low_space_warning_mb}), the store's health carries a warning (logged once, shown on the admin page); it
 * clears once free space is back above the threshold by a margin, so a value hovering at the line does not flap.
 */
final class FreeSpace {
    /** How far above the threshold free space must climb before the warning clears. */
    static final long MARGIN_BYTES = 16L * 1024 * 1024;

    private final Path file;
    private final long thresholdBytes;
    private final StoreOutage health;

    FreeSpace(Path file, long thresholdBytes, StoreOutage health) {
        this.file = file;
        this.thresholdBytes = thresholdBytes;
        this.health = health;
    }

    /** Looks at the free space now and sets or clears the warning. */
    void check() {
        if (thresholdBytes <= 0) {
            return;
        }
        long free;
        try {
            free = Files.getFileStore(file.getParent()).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return; // not measurable here: no warning either way
        }
        boolean warned = health.health().warning() != null;
        if (free < thresholdBytes) {
            health.warning("the disk holding " + file + " has " + mib(free) + " MiB free, under the warning threshold of "
                    + mib(thresholdBytes) + " MiB (store.low_space_warning_mb); free space there before it fills, or writes will stop");
        } else if (warned && free >= thresholdBytes + MARGIN_BYTES) {
            health.warning(null);
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%,d", bytes / (1024 * 1024));
    }
}
