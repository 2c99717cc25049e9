package dev.herald.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The fault soak: real {@code herald run} nodes (the checkout's {@code bin/herald}) under load from API clients while
 * faults happen, then a count of what users would have noticed. Four scenarios, each one result row:
 * <ol>
 *   <li><b>cluster</b> ({@link ClusterSoak}): three nodes on one PostgreSQL; each session's messages sent in pairs to
 *       two nodes at once (two tabs), while nodes are killed (kill -9) and stopped (SIGTERM) and started again;</li>
 *   <li><b>streams</b> ({@link StreamSoak}): one node whose model cuts a fraction of its answers off mid-stream;</li>
 *   <li><b>outage</b> ({@link StoreOutageSoak}): one node on PostgreSQL, the database stopped and started again;</li>
 *   <li><b>disk</b> ({@link FullDiskSoak}): one node on SQLite whose home, a small tmpfs, is filled up and then freed.</li>
 * </ol>
 * The counts ({@link SoakLedger}) are the same in every scenario; the command exits 1 when one is not 0, and then keeps
 * the nodes' homes and logs. {@code bin/soak-faults} runs it.
 */
public final class FaultSoak {
    static final List<String> SCENARIOS = List.of("cluster", "streams", "outage", "disk");
    private static final String ROW = "%-9s %8s %5s %10s %6s %9s  %s%n";

    private FaultSoak() {
    }

    /** The command line, validated. */
    record Options(List<String> only, int pairs, int disruptions, int lease, int clients, int messages, double cutFraction,
                   int outageSeconds, int fullSeconds, int diskMb, long seed, Path launcher, Path parent) {

        private static final Set<String> NAMES = Set.of("only", "pairs", "disruptions", "lease", "clients", "messages", "cut-fraction",
                "outage-seconds", "full-seconds", "disk-mb", "seed", "herald", "dir");

        static Options parse(String[] args) {
            Map<String, String> o = Args.parse(args);
            for (String name : o.keySet()) {
                if (!NAMES.contains(name)) {
                    throw new IllegalArgumentException("soak - unknown option --" + name + "; bin/soak-faults --help lists them");
                }
            }
            Set<String> only = new LinkedHashSet<>();
            for (String s : o.getOrDefault("only", String.join(",", SCENARIOS)).split(",")) {
                String name = s.strip().toLowerCase(Locale.ROOT);
                if (!SCENARIOS.contains(name)) {
                    throw new IllegalArgumentException("soak - unknown scenario '" + s.strip() + "' in --only; use some of "
                            + String.join(", ", SCENARIOS));
                }
                only.add(name);
            }
            double cut = Double.parseDouble(o.getOrDefault("cut-fraction", "0.3"));
            if (cut < 0 || cut > 1) {
                throw new IllegalArgumentException("soak - --cut-fraction must be 0..1, was " + cut);
            }
            return new Options(SCENARIOS.stream().filter(only::contains).toList(), positive(o, "pairs", 3), positive(o, "disruptions", 10),
                    positive(o, "lease", 3), positive(o, "clients", 6), positive(o, "messages", 400), cut,
                    positive(o, "outage-seconds", 15), positive(o, "full-seconds", 10), positive(o, "disk-mb", 48),
                    Long.parseLong(o.getOrDefault("seed", Long.toString(System.nanoTime() % 1_000_000))),
                    Path.of(o.getOrDefault("herald", "bin/herald")).toAbsolutePath(),
                    Path.of(o.getOrDefault("dir", System.getProperty("java.io.tmpdir"))).toAbsolutePath());
        }

        private static int positive(Map<String, String> o, String name, int fallback) {
            String v = o.getOrDefault(name, Integer.toString(fallback));
            int n;
            try {
                n = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("soak - --" + name + " must be a whole number, was '" + v + "'");
            }
            if (n < 1) {
                throw new IllegalArgumentException("soak - --" + name + " must be at least 1, was " + n);
            }
            return n;
        }
    }

    /** One scenario's row: its counts, or none when it was skipped or broke down ({@code details} says which). */
    record Result(String scenario, SoakLedger.Counts counts, String details, boolean broke) {
        static Result counted(String scenario, SoakLedger.Counts counts, String details) {
            return new Result(scenario, counts, details, false);
        }

        static Result skipped(String scenario, String why) {
            return new Result(scenario, null, "skipped: " + why, false);
        }

        static Result broke(String scenario, String why) {
            return new Result(scenario, null, "error: " + why, true);
        }

        boolean failed() {
            return broke || counts != null && !counts.clean();
        }
    }

    /** What a scenario gets: the options, its folder, where progress goes, and what to undo at the end. */
    record Soak(Options options, Path dir, PrintStream progress, Cleanup cleanup, long startedAt) {
        void phase(String scenario, String what) {
            long s = (System.nanoTime() - startedAt) / 1_000_000_000;
            progress.printf("soak - %d:%02d %s: %s%n", s / 60, s % 60, scenario, what);
            progress.flush();
        }
    }

    /** Things to undo (stop a node, unmount a file system), last first; run at the end, or by Ctrl-C. Runs once. */
    static final class Cleanup {
        private final Deque<AutoCloseable> steps = new ArrayDeque<>();

        synchronized <T extends AutoCloseable> T add(T step) {
            steps.push(step);
            return step;
        }

        /** Runs {@code step} now if it is still pending, and forgets it. */
        synchronized void runNow(AutoCloseable step) throws Exception {
            if (steps.remove(step)) {
                step.close();
            }
        }

        synchronized void runAll() {
            while (!steps.isEmpty()) {
                try {
                    steps.pop().close();
                } catch (Exception e) {
                    System.err.println("soak - cleanup failed: " + e);
                }
            }
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the soak; returns the exit code: 0 when every count is 0, 1 when one is not (or a scenario broke), 2 for bad options. */
    static int run(String[] args, PrintStream out, PrintStream progress) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            progress.println(e.getMessage());
            return 2;
        }
        Path dir;
        try {
            Files.createDirectories(options.parent());
            dir = Files.createTempDirectory(options.parent(), "herald-soak-");
        } catch (IOException e) {
            progress.println("soak - cannot create a folder in " + options.parent() + ": " + e.getMessage());
            return 2;
        }
        Cleanup cleanup = new Cleanup();
        Thread hook = new Thread(() -> {
            cleanup.runAll();
            progress.println("soak - interrupted; the nodes' homes and logs are kept in " + dir);
        }, "soak-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        Soak soak = new Soak(options, dir, progress, cleanup, System.nanoTime());
        header(out, options);
        List<Result> results = new ArrayList<>();
        try {
            for (String scenario : options.only()) {
                Result r;
                try {
                    r = switch (scenario) {
                        case "cluster" -> ClusterSoak.run(soak);
                        case "streams" -> StreamSoak.run(soak);
                        case "outage" -> StoreOutageSoak.run(soak);
                        default -> FullDiskSoak.run(soak);
                    };
                } catch (Exception e) {
                    e.printStackTrace(progress);
                    r = Result.broke(scenario, e.getMessage() == null ? e.toString() : e.getMessage());
                } finally {
                    cleanup.runAll();
                }
                results.add(r);
                out.print(row(r));
                if (r.counts() != null) {
                    r.counts().problems().forEach(p -> out.println("          " + p));
                }
                out.flush();
            }
        } finally {
            cleanup.runAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs already
            }
        }
        boolean failed = results.stream().anyMatch(Result::failed);
        if (failed) {
            out.println();
            out.println("soak - a count is not 0 or a scenario broke down; the nodes' homes and logs are kept in " + dir);
            return 1;
        }
        try {
            Args.deleteTree(dir);
        } catch (IOException e) {
            progress.println("soak - could not delete " + dir + ": " + e.getMessage() + "; delete it by hand");
        }
        return 0;
    }

    static void header(PrintStream out, Options o) {
        out.printf("fault soak: %d cores, load average %s; seed %d; %s%n", Runtime.getRuntime().availableProcessors(), loadAverage(),
                o.seed(), o.launcher());
        out.println("  lost       = a message the client sent that was never answered (no 200 and no answer following it in the");
        out.println("               transcript), or answered but missing from its transcript");
        out.println("  duplicated = a message stored twice in the transcript or answered twice");
        out.println("  stuck      = turns not finished (RECEIVED/RUNNING/AWAITING_DELIVERY) " + SoakLedger.SETTLE.toSeconds()
                + " s after the load stopped");
        out.println("  truncated  = an answer a client received as complete (HTTP 200, finish_reason stop) that is not the whole answer");
        out.println();
        out.printf(ROW, "scenario", "messages", "lost", "duplicated", "stuck", "truncated", "details");
        out.flush();
    }

    static String row(Result r) {
        SoakLedger.Counts c = r.counts();
        if (c == null) {
            return String.format(ROW, r.scenario(), "-", "-", "-", "-", "-", r.details());
        }
        return String.format(ROW, r.scenario(), c.messages(), c.lost(), c.duplicated(), c.stuck(), c.truncated(), r.details());
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
