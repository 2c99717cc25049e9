package dev.herald.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * One node on SQLite whose home is a small file system of its own ({@code mount -t tmpfs -o size=<--disk-mb>m}, so
 * root is needed), under steady load. A filler file takes all the free space and keeps taking whatever is freed (as
 * another program filling the disk would) until the node cannot write, which {@code /health/ready} then says; after
 * {@code --full-seconds} the filler is deleted, and the node must answer again by itself, without a restart. The file
 * system is unmounted at the end whatever happens (when the run failed, the home is copied out first).
 */
final class FullDiskSoak {
    private static final Duration BEFORE = Duration.ofSeconds(5);
    private static final Duration AFTER = Duration.ofSeconds(8);
    private static final Duration FILL_BOUND = Duration.ofSeconds(60);
    static final String NEEDS_ROOT = "needs root to mount a small file system";

    private FullDiskSoak() {
    }

    static FaultSoak.Result run(FaultSoak.Soak soak) throws Exception {
        FaultSoak.Options o = soak.options();
        Path home = soak.dir().resolve("disk-home");
        if (!root()) {
            return FaultSoak.Result.skipped("disk", NEEDS_ROOT);
        }
        Files.createDirectories(home);
        soak.phase("disk", "mounting a " + o.diskMb() + " MiB tmpfs on " + home);
        String refused = command("mount", "-t", "tmpfs", "-o", "size=" + o.diskMb() + "m,mode=0700", "tmpfs", home.toString());
        if (refused != null) {
            return FaultSoak.Result.skipped("disk", NEEDS_ROOT + " (" + refused + ")");
        }
        Mount mount = soak.cleanup().add(new Mount(home, soak.dir().resolve("disk-home-kept")));
        EchoModel model = soak.cleanup().add(new EchoModel(o.seed(), Duration.ofMillis(200), Duration.ofMillis(10)));
        SoakNode node = soak.cleanup().add(SoakNode.configure("the disk node", o.launcher(), home, soak.dir().resolve("disk-node.log"),
                model.baseUrl(), 120, ""));
        soak.phase("disk", "starting a node on SQLite in it");
        node.start();
        ReadyWatch watch = soak.cleanup().add(new ReadyWatch(node));

        soak.phase("disk", o.clients() + " clients send, each pausing up to 0.5 s between messages");
        SoakLedger ledger = new SoakLedger();
        SoakClient.Counters counters = new SoakClient.Counters();
        SoakLoad load = new SoakLoad("disk-" + o.seed(), () -> node.uri("/"), ledger, counters, -1, Duration.ofMillis(500)).start(o.clients(), (c, m) -> c % 2 == 0);
        Thread.sleep(BEFORE);
        soak.phase("disk", "filling the file system");
        long fillStart = System.nanoTime();
        Filler filler = soak.cleanup().add(new Filler(home.resolve("filler")));
        int failuresBefore = counters.failures();
        long down = -1;
        boolean clientsFailed = false;
        while (down < 0 && !clientsFailed && System.nanoTime() - fillStart < FILL_BOUND.toNanos()) {
            Thread.sleep(100);
            down = watch.firstStoreDownAfter(fillStart);
            clientsFailed = counters.failures() > failuresBefore;
        }
        long failedAt = down < 0 ? System.nanoTime() : down;
        String full;
        if (down < 0 && !clientsFailed) {
            full = "the node could still write " + FILL_BOUND.toSeconds() + " s after the disk was full";
            soak.phase("disk", full);
        } else {
            full = (down < 0 ? "requests failed " : "the node said it could not write ") + StoreOutageSoak.seconds((failedAt - fillStart)
                    / 1_000_000) + " after the filler started (" + filler.written() / (1024 * 1024) + " MiB filler)";
            soak.phase("disk", full + "; keeping it full for " + o.fullSeconds() + " s");
            Thread.sleep(Duration.ofSeconds(o.fullSeconds()));
        }
        soak.phase("disk", "deleting the filler");
        soak.cleanup().runNow(filler);
        long freed = System.nanoTime();
        Thread.sleep(AFTER);
        soak.phase("disk", "load stopping; waiting for the turns to settle");
        load.stop();
        if (!node.alive()) {
            throw new IllegalStateException("soak - the disk node exited; see " + node.log() + " and " + home.resolve("logs"));
        }
        SoakLedger.Store store = SoakLedger.Store.sqlite(home.resolve("herald.db"));
        int stuck = store.awaitSettled();
        SoakLedger.Counts counts = ledger.count(store.transcript(), stuck);
        long failed = store.turns("FAILED");
        long resumed = store.count("SELECT COUNT(*) FROM turns WHERE origin = 'RESUME'");
        long readyAgain = watch.firstReadyAfter(freed);
        long storeDown = watch.storeDownMillis(fillStart, System.nanoTime());
        watch.close();
        soak.cleanup().runNow(node);
        mount.keep = !counts.clean();
        soak.cleanup().runNow(mount);

        long answered = load.firstAnswerAfter(freed);
        return FaultSoak.Result.counted("disk", counts, o.diskMb() + " MiB tmpfs; " + full + "; /health/ready 503 store_unavailable for "
                + StoreOutageSoak.seconds(storeDown) + ", ready again " + (readyAgain < 0 ? "never" : StoreOutageSoak.seconds((readyAgain - freed) / 1_000_000))
                + " and answers again " + (answered < 0 ? "never" : StoreOutageSoak.seconds(answered)) + " after the filler was deleted "
                + "(no restart); " + failed + " turns FAILED, " + resumed + " resumed; " + counters.summary());
    }

    /** Whether this process runs as root (the owner of /proc/self). */
    static boolean root() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** Runs a command; null when it succeeded, else its output (or why it could not run). */
    static String command(String... cmd) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor() == 0 ? null : out.isEmpty() ? String.join(" ", cmd) + " exited " + p.exitValue() : out;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    /** The tmpfs on the node's home: unmounted on close, after copying the home out when {@link #keep} is set. */
    private static final class Mount implements AutoCloseable {
        private final Path at;
        private final Path kept;
        volatile boolean keep = true;

        Mount(Path at, Path kept) {
            this.at = at;
            this.kept = kept;
        }

        @Override
        public void close() throws Exception {
            if (keep) {
                copy(at, kept);
                System.err.println("soak - disk: the node's home is copied to " + kept);
            }
            String failed = command("umount", at.toString());
            for (int i = 0; failed != null && i < 10; i++) {
                Thread.sleep(1_000); // a process of the node may still hold a file open
                failed = command("umount", at.toString());
            }
            if (failed != null && command("umount", "-l", at.toString()) != null) {
                System.err.println("soak - disk: could not unmount " + at + " (" + failed + "); run umount " + at + " as root");
            }
        }

        private static void copy(Path from, Path to) {
            try (Stream<Path> walk = Files.walk(from)) {
                for (Path p : walk.toList()) {
                    if (p.getFileName() != null && p.getFileName().toString().equals("filler")) {
                        continue;
                    }
                    Path target = to.resolve(from.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("soak - disk: could not copy the node's home out of " + from + ": " + e.getMessage());
            }
        }
    }

    /**
     * A file that takes all the free space of its file system and keeps taking what is freed, until closed; closing
     * deletes it.
     */
    private static final class Filler implements AutoCloseable {
        private final Path file;
        private final AtomicLong written = new AtomicLong();
        private final Thread thread;
        private volatile boolean stop;

        Filler(Path file) {
            this.file = file;
            this.thread = Thread.ofPlatform().name("soak-filler").daemon().start(this::fill);
        }

        /** Bytes the filler holds now. */
        long written() {
            try {
                return Files.size(file);
            } catch (IOException e) {
                return written.get();
            }
        }

        private void fill() {
            byte[] block = new byte[64 * 1024];
            try (OutputStream out = Files.newOutputStream(file)) {
                while (!stop) {
                    try {
                        out.write(block);
                        out.flush();
                        written.addAndGet(block.length);
                    } catch (IOException full) {
                        Thread.sleep(20);
                    }
                }
            } catch (IOException | InterruptedException e) {
                System.err.println("soak - disk: the filler stopped: " + e);
            }
        }

        @Override
        public void close() throws Exception {
            stop = true;
            thread.join();
            Files.deleteIfExists(file);
        }
    }
}
