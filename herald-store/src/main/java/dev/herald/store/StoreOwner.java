package dev.herald.store;

/**
 * The claim one gateway holds on its store for as long as it runs: SQLite's lock file next to the database
 * ({@link dev.herald.store.sqlite.SqliteOwner}), PostgreSQL's session advisory lock
 * ({@link dev.herald.store.postgres.PostgresOwner}). A gateway's start-up treats every turn still marked running
 * as cut off by a crash, so a second gateway on the same store would "recover" the first one's live turns and
 * answer them twice; the claim is taken before anything else is read or written, and a second claim is refused
 * with {@link dev.herald.core.session.StoreException#inUse} naming the holder. The operating system (or the
 * database server) drops the claim when the process dies, so a crash never leaves a stale claim behind.
 * Readers ({@code herald status}, the admin page of another process, tests) open the store without claiming.
 */
public interface StoreOwner extends AutoCloseable {
    /**
     * This process as a claim names it: {@code pid 4242 on host1}. The host name is read without a DNS lookup
     * ({@code InetAddress.getLocalHost()} can wait seconds for a resolver on a machine whose name does not resolve).
     */
    static String thisProcess() {
        String host = System.getenv("HOSTNAME");
        for (String file : new String[] {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
            if (host != null && !host.isBlank()) {
                break;
            }
            try {
                host = java.nio.file.Files.readString(java.nio.file.Path.of(file)).strip();
            } catch (java.io.IOException | RuntimeException e) {
                host = null;
            }
        }
        return "pid " + ProcessHandle.current().pid() + " on " + (host == null || host.isBlank() ? "this machine" : host.strip());
    }

    /** What is held, for logs: {@code /srv/herald/herald.db-lock} or {@code postgresql host:5432/herald}. */
    String describe();

    /** Releases the claim. Idempotent. */
    @Override
    void close();
}
