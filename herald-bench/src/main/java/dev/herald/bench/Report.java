package dev.herald.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Prints the benchmark's tables: the machine, one row per scenario run, and the goals of issue 15 side by side. */
final class Report {
    /** One measured run: its driver result, the gateway tree's CPU over it, the driver's own CPU, the tree's RSS after it. */
    record Row(String label, LoadDriver.Result result, long cpuMillis, long jitMillis, long driverCpuMillis, double rssMbAfter, long turnsSoFar) {
        double cpuPerTurn() {
            return result.turns() == 0 ? 0 : (double) cpuMillis / result.turns();
        }

        /** The part of {@link #cpuPerTurn()} the JIT compiler threads used: warm-up still going on. */
        double jitPerTurn() {
            return result.turns() == 0 ? 0 : (double) jitMillis / result.turns();
        }

        double driverCpuPerTurn() {
            return result.turns() == 0 ? 0 : (double) driverCpuMillis / result.turns();
        }
    }

    /** One goal line: what was asked, what was measured, whether it was met (empty: not measured in this run). */
    record Goal(String goal, String measured, Optional<Boolean> met) {
        String verdict() {
            return met.map(m -> m ? "yes" : "no").orElse("n/a");
        }
    }

    private static final int THREAD_ROWS = 12;
    private static final String ROW = "%-34s %7s %7s %6s %8s %8s %8s %8s %8s %9s %9s %9s %8s%n";

    private final PrintStream out;

    Report(PrintStream out) {
        this.out = out;
    }

    void machine(Path home) {
        out.printf("machine: %d cores (%s), %s RAM, load average %s; %s %s; home on %s%n", Runtime.getRuntime().availableProcessors(),
                firstValue(Path.of("/proc/cpuinfo"), "model name"), firstValue(Path.of("/proc/meminfo"), "MemTotal"),
                loadAverage(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), filesystem(home));
    }

    void header() {
        out.println();
        out.printf(ROW, "scenario", "clients", "turns", "errors", "turns/s", "ovh p50", "ovh p99", "ovh max", "lat p50", "CPU-ms/t", "JIT-ms/t",
                "drv-ms/t", "RSS MB");
        out.printf(ROW, "", "", "", "", "", "(ms)", "(ms)", "(ms)", "(ms)", "gateway", "of which", "driver", "after");
    }

    void row(Row row) {
        LoadDriver.Result r = row.result();
        out.printf(ROW, row.label(), r.clients(), r.turns(), r.errors(), String.format("%.0f", r.turnsPerSecond()),
                r.overhead().p50(), r.overhead().p99(), r.overhead().maxMs(), r.latency().p50(),
                String.format("%.2f", row.cpuPerTurn()), String.format("%.2f", row.jitPerTurn()), String.format("%.2f", row.driverCpuPerTurn()),
                String.format("%.0f", row.rssMbAfter()));
        if (r.scenario() == Scenario.CONTINUING) {
            sub("turns 1-10 of each conversation", r.early());
            int l = r.conversationLength();
            sub(l > 20 ? "turns " + (l - 10) + "-" + l + " of each conversation" : "last turns (conversations of " + l + " turns)", r.late());
        }
        if (r.scenario() == Scenario.STREAMING) {
            sub("first byte after model's 1st token", r.firstByte());
        }
        for (String e : r.errorSamples()) {
            out.println("    error: " + e);
        }
    }

    void probe(LoadDriver.Probe p) {
        out.printf("%nflatness probe: one client, alternating a new conversation and the longest one above (%,d turns)%n", p.length());
        sub("turns 1-" + LoadDriver.PROBE_FRESH + " of new conversations", p.fresh());
        sub("turns " + (p.length() + 1) + "-" + (p.length() + p.continued().count()) + " of the long one", p.continued());
        for (String e : p.errorSamples()) {
            out.println("    error: " + e);
        }
    }

    private void sub(String label, Samples s) {
        out.printf(ROW, "  " + label, "", s.count(), "", "", s.p50(), s.p99(), s.maxMs(), "", "", "", "", "");
    }

    void goals(List<Goal> goals) {
        int width = goals.stream().mapToInt(g -> g.goal().length()).max().orElse(10);
        int mwidth = Math.max(8, goals.stream().mapToInt(g -> g.measured().length()).max().orElse(8));
        String fmt = "%-" + width + "s  %-" + mwidth + "s  %s%n";
        out.println();
        out.printf(fmt, "goal (issue 15)", "measured", "met?");
        for (Goal g : goals) {
            out.printf(fmt, g.goal(), g.measured(), g.verdict());
        }
    }

    /**
     * How busy the machine was while the turns ran, in cores: the gateway tree, the driver (with the model), and every other
     * process; on a shared machine the last one says how far the figures are from an idle machine's.
     */
    void sharedMachine(long wallNanos, ProcessTree.MachineCpu after, ProcessTree.MachineCpu before, long treeMillis, long driverMillis) {
        double wallMs = wallNanos / 1e6;
        double busy = (after.busyMillis() - before.busyMillis()) / wallMs;
        double others = Math.max(0, busy - (treeMillis + driverMillis) / wallMs);
        out.printf("%nmachine while the turns ran (%.0f s): %.2f of %d cores busy: gateway tree %.2f, driver and model %.2f, other processes %.2f; "
                        + "steal %.2f; load average now %s%n", wallMs / 1e3, busy, Runtime.getRuntime().availableProcessors(), treeMillis / wallMs,
                driverMillis / wallMs, others, (after.stealMillis() - before.stealMillis()) / wallMs, loadAverage());
    }

    /**
     * The gateway JVM's CPU by thread over the measured runs, grouped by kernel thread name with pool numbers as N. Virtual
     * threads (turns, HTTP handlers) run on the {@code ForkJoinPool-N-} carriers; threads that ended meanwhile are missing.
     */
    void threads(long wallNanos, Map<Long, ProcessTree.ThreadCpu> before, Map<Long, ProcessTree.ThreadCpu> after) {
        Map<String, Long> byName = new HashMap<>();
        long total = 0;
        for (Map.Entry<Long, ProcessTree.ThreadCpu> e : after.entrySet()) {
            ProcessTree.ThreadCpu was = before.get(e.getKey());
            long ms = e.getValue().cpuMillis() - (was == null ? 0 : was.cpuMillis());
            byName.merge(e.getValue().name().replaceAll("(?<=[#-])\\d+", "N"), ms, Long::sum);
            total += ms;
        }
        double wallMs = wallNanos / 1e6;
        out.printf("%ngateway JVM CPU by thread while the turns ran (%.2f cores in all; virtual threads run on the ForkJoinPool carriers)%n",
                total / wallMs);
        out.printf("  %-16s %8s %6s %6s%n", "thread", "CPU s", "cores", "share");
        long sum = total;
        byName.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(THREAD_ROWS)
                .forEach(e -> out.printf("  %-16s %8.1f %6.2f %5.1f%%%n", e.getKey(), e.getValue() / 1e3, e.getValue() / wallMs,
                        100.0 * e.getValue() / Math.max(1, sum)));
    }

    static String mb(double mb) {
        return String.format("%.0f MB", mb);
    }

    static String ms(long nanos) {
        return String.format("%.2f ms", nanos / 1e6);
    }

    /** The members of a process tree: "launcher java 112 MB + java 180 MB". */
    static String members(ProcessTree.Reading r) {
        List<String> parts = new ArrayList<>();
        for (ProcessTree.Member m : r.members()) {
            parts.add(m.name() + " " + m.pid() + " " + mb(m.rssKb() / 1024.0));
        }
        return String.join(" + ", parts);
    }

    /** The 1, 5 and 15 minute load averages. */
    static String loadAverage() {
        String[] f = read(Path.of("/proc/loadavg")).split(" ");
        return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : "?";
    }

    private static String firstValue(Path file, String key) {
        for (String line : read(file).split("\n")) {
            if (line.startsWith(key)) {
                return line.substring(line.indexOf(':') + 1).strip().replaceAll("\\s+", " ");
            }
        }
        return "?";
    }

    /** The file system type and mount point {@code path} is on, from /proc/mounts (the longest matching mount point). */
    private static String filesystem(Path path) {
        String best = "";
        String type = "?";
        String abs = path.toAbsolutePath().toString();
        for (String line : read(Path.of("/proc/mounts")).split("\n")) {
            String[] f = line.split(" ");
            if (f.length > 2 && (abs.equals(f[1]) || abs.startsWith(f[1].endsWith("/") ? f[1] : f[1] + "/")) && f[1].length() >= best.length()) {
                best = f[1];
                type = f[2];
            }
        }
        return type + " (" + best + ")";
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).strip();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
