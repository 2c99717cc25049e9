package dev.herald.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The gateway benchmark ({@code bin/bench-gateway}): a real {@code herald run} on a fresh temporary home (SQLite,
 * {@code synchronous=FULL} as shipped) talking to an {@link InstantModel}, driven through its OpenAI-compatible
 * API by N concurrent clients ({@link LoadDriver}) in four scenarios: a new durable conversation per turn, a
 * stateless request, a continuing conversation (up to 1,000 turns in one durable session) and a streamed answer.
 *
 * <p>Per run it prints the overhead per turn (client latency minus the model's own time: p50, p99, max), turns
 * per second, CPU milliseconds per turn of the whole gateway process tree and of the driver itself (the driver
 * and the model share the machine with the gateway), and the tree's resident memory; once, the ready time
 * (launcher start to {@code /health/ready} 200) with the memory and CPU it took; the first {@code --warmup} turns
 * (the JIT warming up) apart from the steady state; with {@code --jfr}, the gateway's hot methods over the measured
 * runs; and last the goals of issue 15 beside what was measured. Everything runs on loopback; the process tree
 * and the home are removed on every exit, Ctrl-C included.
 */
public final class GatewayBench {
    private static final Set<String> FLAGS = Set.of("jfr", "foreground", "help");
    private static final Set<String> OPTIONS = Set.of("clients", "turns", "continuing-turns", "conversation", "warmup", "scenarios", "jfr",
            "soak", "herald", "foreground", "dir", "help");
    private static final String USAGE = """
            usage: bin/bench-gateway [options]
              --clients N,N,...      concurrent clients, one row set each (default 8; the curve: 8,32,128,512)
              --turns N              turns per run of new, stateless and streaming (2000)
              --continuing-turns N   turns per continuing run (8000: at 8 clients one 1,000-turn conversation each)
              --conversation N       longest conversation of a continuing run (1000)
              --warmup N             first turns, reported apart (500)
              --scenarios LIST       some of new,stateless,continuing,streaming (all)
              --jfr                  profile the gateway JVM after the warm-up; print its top 15 hot methods
              --soak N               N more new-conversation turns in ten parts, RSS after each
              --foreground           herald run --foreground (one JVM)
              --herald PATH          the launcher to start (bin/herald)
              --dir DIR              where the temporary home goes (the system temp folder)
            """;
    private static final int HOT_METHODS = 15;
    private static final int PROBE_TURNS = 30;

    /** The command-line options; see {@code bin/bench-gateway}. */
    record Options(List<Integer> clients, int turns, int continuingTurns, int conversation, int warmup, List<Scenario> scenarios,
                   boolean jfr, int soak, List<String> launcher, boolean foreground, Path dir) {
        static Options parse(String[] args) {
            Map<String, String> o = Args.parse(args, FLAGS);
            for (String name : o.keySet()) {
                if (!OPTIONS.contains(name)) {
                    throw new IllegalArgumentException("bench - unknown option --" + name + "; known: --" + String.join(", --", OPTIONS.stream().sorted().toList()));
                }
            }
            Options parsed = new Options(clients(o.getOrDefault("clients", "8")), number(o, "turns", 2000),
                    number(o, "continuing-turns", 8000), number(o, "conversation", 1000), number(o, "warmup", 500),
                    Scenario.parse(o.getOrDefault("scenarios", "new,stateless,continuing,streaming")), o.containsKey("jfr"),
                    number(o, "soak", 0), List.of(o.getOrDefault("herald", "bin/herald")), o.containsKey("foreground"),
                    Path.of(o.getOrDefault("dir", System.getProperty("java.io.tmpdir"))));
            if (parsed.clients.stream().anyMatch(c -> c < 1 || c > 4096)) {
                throw new IllegalArgumentException("bench - --clients must be 1..4096 each, was " + parsed.clients);
            }
            return parsed;
        }

        private static List<Integer> clients(String csv) {
            try {
                return Args.sizes(csv);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bench - --clients must be numbers separated by commas, e.g. 8,32,128, was '" + csv + "'");
            }
        }

        private static int number(Map<String, String> o, String name, int dflt) {
            String v = o.get(name);
            try {
                int n = v == null ? dflt : Integer.parseInt(v.strip().replace("_", "").replace(",", ""));
                if (n < 0) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bench - --" + name + " must be a whole number 0 or more, was '" + v + "'");
            }
        }
    }

    private final Options options;
    private final PrintStream out;
    private final Report report;
    private final List<Report.Row> rows = new ArrayList<>();
    private GatewayProcess gateway;
    private LoadDriver driver;
    private long turnsSoFar;

    private GatewayBench(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.report = new Report(out);
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out));
    }

    /** Runs the benchmark, printing to {@code out}; returns the exit code (0 done, 1 turns failed or the gateway did, 64 usage). */
    public static int run(String[] args, PrintStream out) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            out.print(USAGE);
            return 64;
        }
        if (Arrays.asList(args).contains("--help")) {
            out.print(USAGE);
            return 0;
        }
        if (!ProcessTree.supported()) {
            out.println("bench - needs Linux's /proc to read the gateway's CPU and memory; not found here");
            return 1;
        }
        if (!Files.isExecutable(Path.of(options.launcher().get(0)))) {
            out.println("bench - " + options.launcher().get(0) + " is not an executable launcher; run from the checkout or pass --herald PATH");
            return 64;
        }
        return new GatewayBench(options, out).run();
    }

    private int run() throws Exception {
        long began = System.nanoTime();
        try (InstantModel model = InstantModel.start()) {
            gateway = GatewayProcess.start(options.launcher(), options.dir(), model.baseUrl(),
                    options.foreground() ? List.of("--foreground") : List.of());
            GatewayProcess started = gateway;
            Thread hook = new Thread(() -> {
                System.err.println("bench - interrupted; stopping herald and deleting " + started.home());
                started.close();
            }, "bench-cleanup");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                driver = new LoadDriver(gateway.uri("/v1/chat/completions"), model, "b" + Long.toString(System.currentTimeMillis(), 36), out,
                        gateway::alive);
                int failed = measure(model);
                out.printf("%nbench took %.0f s%n", (System.nanoTime() - began) / 1e9);
                return failed;
            } catch (IllegalStateException e) {
                out.println(e.getMessage());
                return 1;
            } finally {
                gateway.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or has run
                }
            }
        }
    }

    private int measure(InstantModel model) throws Exception {
        report.machine(gateway.home());
        out.printf("herald: %s run%s on a temporary home; model: instant, on loopback; clients %s; %,d turns per run (continuing: %,d, "
                        + "conversations of %,d); warm-up %,d%n", String.join(" ", options.launcher()), options.foreground() ? " --foreground" : "",
                options.clients(), options.turns(), options.continuingTurns(), options.conversation(), options.warmup());
        GatewayProcess.Ready ready = gateway.awaitReady();
        out.printf("ready: %.2f s from process start to /health/ready 200; CPU to ready %.2f s; tree RSS %s (%s)%n",
                ready.elapsed().toMillis() / 1e3, ready.tree().cpuMillis() / 1e3, Report.mb(ready.tree().rssMb()), Report.members(ready.tree()));
        out.println("store: " + gateway.storeLine());
        report.header();
        Snapshot before = snapshot();
        int first = options.clients().get(0);
        if (options.warmup() > 0) {
            measureRun("warm-up: first " + options.warmup() + " turns (new)", Scenario.NEW, first, options.warmup());
        }
        Path jfr = options.jfr() ? startRecording() : null;
        for (int clients : options.clients()) {
            for (Scenario s : options.scenarios()) {
                measureRun(s.label, s, clients, s == Scenario.CONTINUING ? options.continuingTurns() : options.turns());
            }
        }
        if (jfr != null) {
            gateway.jcmd("JFR.stop", "name=bench");
        }
        Optional<LoadDriver.Probe> probe = driver.probe(PROBE_TURNS);
        probe.ifPresent(p -> {
            report.probe(p);
            turnsSoFar += 2L * PROBE_TURNS;
        });
        if (jfr != null) {
            HotMethods.read(jfr).print(out, HOT_METHODS);
            out.printf("%nrecording: %s (jfr view hot-methods %s)%n", jfr, jfr);
        }
        Optional<Report.Goal> soak = options.soak() > 0 ? Optional.of(soak(first)) : Optional.empty();
        printAfterRuns(model, before);
        OptionalLong stopped = gateway.stop();
        out.println(stopped.isPresent() ? "stop: SIGTERM to exit in " + stopped.getAsLong() + " ms" : "stop: did not exit after SIGTERM; killed");
        report.goals(GoalTable.of(rows, ready, probe, soak, options.warmup() > 0));
        int errors = rows.stream().mapToInt(r -> r.result().errors()).sum() + probe.map(LoadDriver.Probe::errors).orElse(0);
        if (errors > 0) {
            out.printf("%nbench - %,d of %,d turns failed (their messages are under the rows above); the figures are not a baseline%n",
                    errors, turnsSoFar);
            return 1;
        }
        return 0;
    }

    /** The machine, the gateway tree, the driver and the gateway's threads when the measured runs start. */
    private record Snapshot(long nanos, ProcessTree.MachineCpu machine, ProcessTree.Reading tree, long driverMillis,
                            Map<Long, ProcessTree.ThreadCpu> threads) {
    }

    private Snapshot snapshot() {
        return new Snapshot(System.nanoTime(), ProcessTree.machine(), gateway.read(), ProcessTree.selfCpuMillis(),
                ProcessTree.threads(gateway.gatewayPid()));
    }

    /** How the machine and the gateway's threads were used since {@code before}, memory now and after a GC, the model's counts. */
    private void printAfterRuns(InstantModel model, Snapshot before) {
        Snapshot now = snapshot();
        long measuredFor = now.nanos() - before.nanos();
        report.sharedMachine(measuredFor, now.machine(), before.machine(), now.tree().cpuMillis() - before.tree().cpuMillis(),
                now.driverMillis() - before.driverMillis());
        report.threads(measuredFor, before.threads(), now.threads());
        ProcessTree.Reading end = now.tree();
        String afterGc = rssAfterGc();
        out.printf("%nafter %,d turns: tree RSS %s (%s); after a forced GC (jcmd GC.run): %s%n", turnsSoFar, Report.mb(end.rssMb()),
                Report.members(end), afterGc);
        out.printf("model: %,d chat requests over %,d connections (%.1f new connections per 100 requests), %,d without a benchmark turn; "
                + "mean model time %.1f us per turn%n", model.requests(), model.connections(),
                100.0 * model.connections() / Math.max(1, model.requests()), model.unattributed(), meanModelMicros());
    }

    private Report.Row measureRun(String label, Scenario scenario, int clients, int turns) throws InterruptedException {
        ProcessTree.Reading before = gateway.read();
        long jitBefore = jitMillis();
        long self = ProcessTree.selfCpuMillis();
        LoadDriver.Result r = driver.run(scenario, clients, turns, options.conversation());
        ProcessTree.Reading after = gateway.read();
        long jit = jitMillis() - jitBefore;
        long driverCpu = ProcessTree.selfCpuMillis() - self;
        turnsSoFar += r.turns();
        Report.Row row = new Report.Row(label, r, after.cpuMillis() - before.cpuMillis(), jit, driverCpu, after.rssMb(), turnsSoFar);
        rows.add(row);
        report.row(row);
        return row;
    }

    /** CPU milliseconds the gateway JVM's JIT compiler threads ({@code C1 CompilerThre}, {@code C2 CompilerThre}) have used. */
    private long jitMillis() {
        return ProcessTree.threads(gateway.gatewayPid()).values().stream().filter(t -> t.name().contains("CompilerThre"))
                .mapToLong(ProcessTree.ThreadCpu::cpuMillis).sum();
    }

    private Path startRecording() throws IOException, InterruptedException {
        Path dir = Files.isDirectory(Path.of("herald-bench/target")) ? Path.of("herald-bench/target") : options.dir();
        Path file = dir.toAbsolutePath().resolve("bench-gateway-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".jfr");
        gateway.jcmd("JFR.start", "name=bench", "settings=profile", "filename=" + file);
        out.println("  (JFR recording the gateway JVM " + gateway.gatewayPid() + " from here on; it costs some CPU)");
        return file;
    }

    /** Runs {@code --soak} new-conversation turns in ten parts; the goal: no growth between the second part and the last. */
    private Report.Goal soak(int clients) throws InterruptedException {
        int part = Math.max(1, options.soak() / 10);
        List<Double> rss = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            rss.add(measureRun("soak " + i + "/10 (new)", Scenario.NEW, clients, part).rssMbAfter());
        }
        double second = rss.get(1);
        double last = rss.get(9);
        return new Report.Goal("no RSS growth trend over " + String.format("%,d", part * 10) + " turns (last part within 10% of the second)",
                Report.mb(second) + " -> " + Report.mb(last), Optional.of(last <= second * 1.1));
    }

    private String rssAfterGc() {
        try {
            gateway.jcmd("GC.run");
            return Report.mb(gateway.read().rssMb());
        } catch (IOException e) {
            return "n/a (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "n/a";
        }
    }

    private double meanModelMicros() {
        long nanos = rows.stream().mapToLong(r -> r.result().modelNanos()).sum();
        long turns = rows.stream().mapToLong(r -> r.result().turns() - r.result().errors()).sum();
        return turns == 0 ? 0 : nanos / 1e3 / turns;
    }

}
