package dev.herald.testkit.browser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A Playwright script (Node, {@code playwright-core} driving Debian's {@code /usr/bin/chromium}) run as a
 * child process of a JUnit test, talking in lines: the script prints one JSON object per step
 * ({@code {"step": "name", ...}}; {@code done} at the end, {@code fail} with an {@code error} when it
 * fails), and reads signal lines on its standard input ({@link #signal}), so a test can do things the
 * page cannot (restart the gateway, release a held model call) at the right moment.
 *
 * <pre>{@code
 * try (BrowserScript page = BrowserScript.start(nodeDir, "browser/chat.mjs", Map.of("HERALD_URL", url))) {
 *     JsonNode partial = page.awaitStep("streamed-partial", Duration.ofSeconds(30));
 *     page.awaitDone(Duration.ofSeconds(60));
 * }
 * }</pre>
 */
public final class BrowserScript implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode EXITED = JSON.createObjectNode().put("step", "<exited>");

    private final String name;
    private final Process process;
    private final BlockingQueue<JsonNode> steps = new LinkedBlockingQueue<>();
    private final List<String> output = java.util.Collections.synchronizedList(new ArrayList<>());

    private BrowserScript(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread.ofVirtual().name("browser-out").start(() -> read(process.getInputStream(), true));
        Thread.ofVirtual().name("browser-err").start(() -> read(process.getErrorStream(), false));
    }

    /**
     * Starts {@code node script} in {@code nodeDir} (where {@code node_modules/playwright-core} must be
     * installed: {@code npm ci} there) with {@code env} added to this process's environment.
     */
    public static BrowserScript start(Path nodeDir, String script, Map<String, String> env) throws IOException {
        requireInstalled(nodeDir);
        ProcessBuilder pb = new ProcessBuilder("node", script).directory(nodeDir.toFile());
        pb.environment().putAll(env);
        return new BrowserScript(script, pb.start());
    }

    /** Fails with a message naming the missing piece when node, playwright-core or chromium is absent. */
    public static void requireInstalled(Path nodeDir) {
        if (!Files.isDirectory(nodeDir.resolve("node_modules/playwright-core"))) {
            throw new AssertionError("playwright-core is not installed in " + nodeDir + "; run: (cd " + nodeDir
                    + " && npm ci)  (.ci/run does this before the tests)");
        }
        Path chromium = Path.of(System.getenv().getOrDefault("HERALD_CHROMIUM", "/usr/bin/chromium"));
        if (!Files.isExecutable(chromium)) {
            throw new AssertionError("no browser at " + chromium + "; install Debian's chromium (apt-get install -y chromium) "
                    + "or point HERALD_CHROMIUM at one (.ci/run installs it)");
        }
    }

    /** Waits for the step named {@code step}, skipping earlier ones; fails on {@code fail}, exit or timeout. */
    public JsonNode awaitStep(String step, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            JsonNode next;
            try {
                next = left <= 0 ? null : steps.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for step " + step);
            }
            if (next == null) {
                throw new AssertionError(name + ": no step '" + step + "' within " + max.toSeconds() + " s; output so far:\n" + output());
            }
            String got = next.path("step").asText();
            if (got.equals("fail") || got.equals("<exited>")) {
                throw new AssertionError(name + " failed while waiting for step '" + step + "': "
                        + next.path("error").asText("exited") + "\noutput:\n" + output());
            }
            if (got.equals(step)) {
                return next;
            }
        }
    }

    /** Waits for {@code done} and a zero exit. */
    public void awaitDone(Duration max) {
        awaitStep("done", max);
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError(name + " said done but did not exit cleanly; output:\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a signal line to the script (it waits for it with {@code signal('name')}). */
    public void signal(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new AssertionError(name + " is not reading signals (" + e.getMessage() + "); output:\n" + output(), e);
        }
    }

    /** Everything the script printed so far, standard error lines prefixed with {@code !}. */
    public String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    private void read(java.io.InputStream stream, boolean stdout) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.add(stdout ? line : "! " + line);
                if (stdout && line.startsWith("{")) {
                    try {
                        JsonNode node = JSON.readTree(line);
                        if (node.has("step")) {
                            steps.add(node);
                        }
                    } catch (IOException notJson) {
                        // a log line that happens to start with '{'
                    }
                }
            }
        } catch (IOException e) {
            output.add("! <read failed: " + e.getMessage() + ">");
        } finally {
            if (stdout) {
                steps.add(EXITED);
            }
        }
    }
}
