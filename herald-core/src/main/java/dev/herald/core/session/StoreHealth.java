package dev.herald.core.session;

import java.time.Instant;

/**
 * Whether the store can take writes now, as its own calls found out: what admission, {@code /health/ready} and the
 * admin page ask. While it cannot, new messages are not taken (a platform redelivers them, the API answers 503) and
 * running turns wait for it for a bounded time.
 *
 * @param writable false while writes fail for a reason of the store as a whole (the disk is full, the database is
 *                 unreachable)
 * @param reason   while not writable, the reason in a few words that name nothing of the installation ("the disk is
 *                 full", "the database cannot be reached"), fit for an open readiness check; null otherwise
 * @param problem  while not writable, the operator's reason (it names the file or the database, never credentials);
 *                 null otherwise
 * @param since    when writes began to fail; null while writable
 * @param warning  a warning while writes still work (the disk is nearly full), or null
 */
public record StoreHealth(boolean writable, String reason, String problem, Instant since, String warning) {
    /** Writes work and nothing is wrong. */
    public static final StoreHealth WRITABLE = new StoreHealth(true, null, null, null, null);

    public StoreHealth {
        if (!writable && (reason == null || problem == null || since == null)) {
            throw new IllegalArgumentException("store health - a store that cannot write needs a reason, a problem and a start");
        }
    }

    /** This health with {@code text} as its warning (null clears it). */
    public StoreHealth withWarning(String text) {
        return new StoreHealth(writable, reason, problem, since, text);
    }
}
