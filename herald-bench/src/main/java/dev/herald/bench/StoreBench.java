package dev.herald.bench;

import dev.herald.core.continuity.Freshness;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.turn.Turns;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.store.sqlite.SqliteBulkLoader;
import dev.herald.store.sqlite.SqliteOptions;
import dev.herald.store.sqlite.SqliteOptions.Synchronous;
import dev.herald.store.sqlite.SqliteStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * The store at scale: for each size, fills a fresh SQLite store, times opening it (start-up) and the
 * start-up sweeps, then the latency of the per-message operations on random existing lanes.
 *
 * <p>Usage: {@code StoreBench [--sizes 10000,100000,1000000] [--ops 5000] [--sync FULL|NORMAL|both]
 * [--rows 2] [--threads 32] [--dir DIR]}. Prints two Markdown tables.
 */
public final class StoreBench {
    private static final Instant FILLED_AT = Instant.parse("2026-04-18T12:00:00Z");
    private static final int WARMUP = 1_000;
    private static final int OPENS = 5;

    record Options(List<Integer> sizes, int ops, List<Synchronous> syncs, int rowsPerSession, int threads, Path dir) {
    }

    record Startup(int sessions, Synchronous sync, double fillSeconds, long dbBytes, double openMs, double sweepMs) {
    }

    record Latency(int sessions, Synchronous sync, String op, long[] nanos, double opsPerSecond) {
        long percentile(double p) {
            return nanos[Math.max(0, (int) Math.ceil(nanos.length * p) - 1)];
        }
    }

    private StoreBench() {
    }

    public static void main(String[] args) throws Exception {
        Options options = parse(args);
        Files.createDirectories(options.dir());
        List<Startup> startups = new ArrayList<>();
        List<Latency> latencies = new ArrayList<>();
        for (int size : options.sizes()) {
            Path db = options.dir().resolve("bench-" + size + ".db");
            deleteDatabase(db);
            long t0 = System.nanoTime();
            SqliteBulkLoader.fill(db, size, options.rowsPerSession(), Clock.fixed(FILLED_AT, ZoneOffset.UTC));
            double fillSeconds = (System.nanoTime() - t0) / 1e9;
            System.err.printf("filled %,d sessions in %.1f s (%,d MiB)%n", size, fillSeconds, Files.size(db) >> 20);
            for (Synchronous sync : options.syncs()) {
                SqliteOptions storeOptions = SqliteOptions.defaults().withSynchronous(sync);
                double openMs = medianOpenMillis(db, storeOptions);
                try (SqliteStorage storage = SqliteStorage.open(db, Clock.systemUTC(), storeOptions)) {
                    double sweepMs = sweepMillis(storage);
                    startups.add(new Startup(size, sync, fillSeconds, Files.size(db), openMs, sweepMs));
                    latencies.addAll(operations(storage, size, sync, options));
                }
            }
            deleteDatabase(db);
        }
        printStartups(startups);
        printLatencies(latencies);
    }

    /** Open, read one lane, close: the store's part of start-up, median of a few runs. */
    private static double medianOpenMillis(Path db, SqliteOptions options) {
        double[] runs = new double[OPENS];
        for (int i = 0; i < OPENS; i++) {
            long t0 = System.nanoTime();
            try (SqliteStorage storage = SqliteStorage.open(db, Clock.systemUTC(), options)) {
                storage.sessions().find(SqliteBulkLoader.key(0)).orElseThrow();
                runs[i] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(runs);
        return runs[OPENS / 2];
    }

    /** The store calls of a start-up: running-turn sweep, stuck-loop escalation, resume-pending listing. */
    private static double sweepMillis(Storage storage) {
        long t0 = System.nanoTime();
        Turns turns = new Turns(storage.turns());
        new OrphanedTurns(turns, Freshness.defaults(), Clock.systemUTC()).end(turns.running(), "start-up sweep");
        storage.sessions().suspendStuckLoops(3);
        storage.sessions().listResumePending(Optional.empty());
        return (System.nanoTime() - t0) / 1e6;
    }

    private static List<Latency> operations(Storage storage, int size, Synchronous sync, Options options) throws Exception {
        Random random = new Random(size);
        int[] picks = random.ints(options.ops() + WARMUP, 0, size).toArray();
        SessionKey[] keys = Arrays.stream(picks).mapToObj(SqliteBulkLoader::key).toArray(SessionKey[]::new);
        SessionSource[] sources = Arrays.stream(picks).mapToObj(SqliteBulkLoader::source).toArray(SessionSource[]::new);
        String[] sessionIds = Arrays.stream(picks).mapToObj(n -> SqliteBulkLoader.sessionId(n, FILLED_AT)).toArray(String[]::new);
        var sessions = storage.sessions();
        var transcripts = storage.transcripts();
        IntConsumer append = i -> transcripts.append(sessionIds[i], TranscriptRow.user("bench message " + i, Instant.now()));
        int ops = options.ops();
        List<Latency> out = new ArrayList<>();
        out.add(measure(size, sync, ops, "getOrCreate", i -> sessions.getOrCreate(keys[i], sources[i])));
        out.add(measure(size, sync, ops, "find (read)", i -> sessions.find(keys[i])));
        out.add(measure(size, sync, ops, "markResumePending", i -> sessions.markResumePending(keys[i], ResumeReason.RESTART_TIMEOUT)));
        out.add(measure(size, sync, ops, "clearResumePending", i -> sessions.clearResumePending(keys[i])));
        out.add(measure(size, sync, ops, "transcript append", append));
        out.add(concurrent(size, sync, ops, options.threads(), "transcript append", append));
        return out;
    }

    /** Runs {@code call} sequentially on one thread: warm-up picks first, then the measured ones. */
    private static Latency measure(int size, Synchronous sync, int ops, String op, IntConsumer call) {
        for (int i = 0; i < WARMUP; i++) {
            call.accept(i);
        }
        long[] nanos = new long[ops];
        long started = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            long t0 = System.nanoTime();
            call.accept(WARMUP + i);
            nanos[i] = System.nanoTime() - t0;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        Arrays.sort(nanos);
        return new Latency(size, sync, op, nanos, ops / seconds);
    }

    /** {@code threads} virtual threads share the operations; group commit shows in ops/s. */
    private static Latency concurrent(int size, Synchronous sync, int ops, int threads, String op, IntConsumer call) throws Exception {
        long[] nanos = new long[ops];
        long started = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                futures.add(pool.submit(() -> {
                    for (int i = first; i < ops; i += threads) {
                        long t0 = System.nanoTime();
                        call.accept(WARMUP + i);
                        nanos[i] = System.nanoTime() - t0;
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        Arrays.sort(nanos);
        return new Latency(size, sync, op + " x" + threads + " threads", nanos, ops / seconds);
    }

    private static void printStartups(List<Startup> rows) {
        System.out.println();
        System.out.println("| sessions | sync | fill s | db MiB | open ms (median of " + OPENS + ") | start-up sweep ms |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        for (Startup s : rows) {
            System.out.printf("| %,d | %s | %.1f | %,d | %.1f | %.1f |%n", s.sessions(), s.sync(), s.fillSeconds(), s.dbBytes() >> 20, s.openMs(), s.sweepMs());
        }
    }

    private static void printLatencies(List<Latency> rows) {
        System.out.println();
        System.out.println("| sessions | sync | operation | p50 µs | p99 µs | max µs | ops/s |");
        System.out.println("|---:|---|---|---:|---:|---:|---:|");
        for (Latency l : rows) {
            System.out.printf("| %,d | %s | %s | %,d | %,d | %,d | %,.0f |%n", l.sessions(), l.sync(), l.op(), l.percentile(0.50) / 1000,
                    l.percentile(0.99) / 1000, l.nanos()[l.nanos().length - 1] / 1000, l.opsPerSecond());
        }
    }

    private static void deleteDatabase(Path db) throws IOException {
        for (String suffix : List.of("", "-wal", "-shm")) {
            Files.deleteIfExists(Path.of(db + suffix));
        }
    }

    private static Options parse(String[] args) {
        List<Integer> sizes = List.of(10_000, 100_000, 1_000_000);
        int ops = 5_000;
        List<Synchronous> syncs = List.of(Synchronous.FULL);
        int rows = 2;
        int threads = 32;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "herald-store-bench");
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(v.split(",")).map(String::trim).map(Integer::parseInt).toList();
                case "--ops" -> ops = Integer.parseInt(v);
                case "--sync" -> syncs = v.equalsIgnoreCase("both") ? List.of(Synchronous.FULL, Synchronous.NORMAL)
                        : List.of(Synchronous.valueOf(v.toUpperCase(Locale.ROOT)));
                case "--rows" -> rows = Integer.parseInt(v);
                case "--threads" -> threads = Integer.parseInt(v);
                case "--dir" -> dir = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --sizes, --ops, --sync FULL|NORMAL|both, --rows, --threads, --dir)");
            }
        }
        return new Options(sizes, ops, syncs, rows, threads, dir);
    }
}
