package dev.herald.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bench-gateway} for a handful of turns against the real {@code herald run} ({@code bin/herald}, which
 * uses the jar herald-app packaged earlier in the build, or builds it when the sources are newer): every row and
 * every goal gets a figure, and nothing is left behind, after a normal end or a Ctrl-C. No timing is asserted.
 */
class GatewayBenchTest {
    private static final Pattern NUMBER = Pattern.compile("\\d+(\\.\\d+)?");

    @TempDir
    Path dir;

    /** bin/herald builds the jar when it is missing or older than the sources: here, not inside a measured start. */
    @BeforeAll
    static void jarIsBuilt() throws Exception {
        Process p = new ProcessBuilder(launcher(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }

    @Test
    void run_fewTurnsOfEveryScenario_printsAFigureForEveryRowAndGoal() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            code = GatewayBench.run(new String[] {"--clients", "2", "--turns", "8", "--warmup", "6", "--continuing-turns", "44",
                "--conversation", "22", "--herald", launcher(), "--dir", dir.toString()}, out);
        }
        String output = buffer.toString(StandardCharsets.UTF_8);
        assertThat(code).as(output).isZero();
        assertThat(output).as(output).containsPattern("ready: \\d+\\.\\d\\d s from process start").contains("synchronous FULL");
        assertFigures(output, "warm-up: first 6 turns (new)", 12);
        for (String row : List.of("new conversation", "stateless", "continuing conversation", "streaming")) {
            assertFigures(output, row, 12);
        }
        assertFigures(output, "  turns 1-10 of each conversation", 4);
        assertFigures(output, "  turns 12-22 of each conversation", 4);
        assertFigures(output, "  first byte after model's 1st token", 4);
        assertFigures(output, "  turns 1-10 of new conversations", 4);
        assertFigures(output, "  turns 23-52 of the long one", 4);
        assertThat(output).containsPattern("after 134 turns: tree RSS \\d+ MB")
                .containsPattern("machine while the turns ran \\(\\d+ s\\): \\d+\\.\\d\\d of \\d+ cores busy")
                .containsPattern("ForkJoinPool-N- +\\d+\\.\\d +\\d+\\.\\d\\d")
                .containsPattern("model: \\d+ chat requests over \\d+ connections");
        for (String goal : List.of("new conversation: overhead p50 < 1 ms", "new conversation: overhead p99 < 5 ms",
                "continuing: overhead p50 < 1 ms", "continuing: overhead p99 < 5 ms", "CPU per turn < 1 ms at 2 clients",
                ">= 1,000 durable turns/s at 2 clients", "client latency p99 < 20 ms at 2 clients", "ready < 2 s",
                "process tree RSS idle (at ready) < 200 MB", "streaming: first byte < 1 ms")) {
            assertThat(line(output, goal)).as(output).containsPattern("\\d+(\\.\\d+)? (ms|s|MB|turns/s)").containsPattern("(yes|no)$");
        }
        assertThat(line(output, "continuing: flat from turn 1 to 1,000"))
                .containsPattern("probe: turns 23-52 \\d+\\.\\d\\d ms vs turns 1-10 \\d+\\.\\d\\d ms .*n/a$");
        assertNothingLeft();
    }

    @Test
    void interrupt_duringARun_stopsHeraldAndDeletesItsHome() throws Exception {
        Path log = dir.resolve("bench.out");
        Path homes = Files.createDirectory(dir.resolve("homes"));
        // through perl, which sets SIGINT back to its default: a test run started in the background of a shell (`bin/test &`)
        // has it ignored, and the JVM installs no handler for an ignored signal, so the interrupt would never arrive
        Process bench = new ProcessBuilder("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec { $ARGV[0] } @ARGV or die \"exec: $!\\n\";",
                ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), GatewayBench.class.getName(), "--clients", "2", "--turns", "1000000",
                "--warmup", "0", "--scenarios", "new", "--herald", launcher(), "--dir", homes.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.readString(log).contains("ready:") && bench.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(Files.readString(log)).as("the benchmark's output").contains("ready:");
            Thread.sleep(500);
            assertThat(new ProcessBuilder("kill", "-INT", Long.toString(bench.pid())).start().waitFor()).isZero();
            assertThat(bench.waitFor(120, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
        } finally {
            bench.descendants().forEach(ProcessHandle::destroyForcibly);
            bench.destroyForcibly();
        }
        try (Stream<Path> left = Files.list(homes)) {
            assertThat(left).as(Files.readString(log)).isEmpty();
        }
        assertNothingLeft();
    }

    /** Every figure column of the row that starts with {@code label} holds a number. */
    private static void assertFigures(String output, String label, int figures) {
        String row = line(output, label);
        String[] cells = row.substring(label.length()).strip().split("\\s+");
        assertThat(cells).as(row).hasSize(figures);
        for (String cell : cells) {
            assertThat(cell).as(row).matches(NUMBER);
        }
    }

    private static String line(String output, String start) {
        return output.lines().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + start + "' in:\n" + output));
    }

    /** The temporary homes are gone and no process names one. */
    private void assertNothingLeft() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> homes = new ArrayList<>(files.filter(p -> p.getFileName().toString().startsWith("herald-bench-gateway-")).toList());
            assertThat(homes).isEmpty();
        }
        List<String> running = ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains(dir.toString()) && c.contains(" run ")).toList();
        assertThat(running).isEmpty();
    }

    private static String launcher() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/herald")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p.resolve("bin/herald").toString();
            }
        }
        throw new IllegalStateException("cannot find the repository root (bin/herald) above " + Path.of("").toAbsolutePath());
    }
}
