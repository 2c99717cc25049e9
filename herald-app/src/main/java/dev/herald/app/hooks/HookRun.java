package dev.herald.app.hooks;

import dev.herald.app.hooks.HookConfig;
import dev.herald.core.config.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One configured hook and how it runs once: a command gets the payload on stdin and {@code HERALD_EVENT} in its
 * environment and is killed at the timeout; a URL gets the payload POSTed. Every failure is logged here, naming the hook
 * by its place in {@code hooks:} and its program's file name or its URL's host (never arguments, paths or headers, which
 * may hold secrets), and nothing is thrown.
 */
final class HookRun {
    private static final Logger log = LoggerFactory.getLogger("hooks");
    /** How much of a failed command's stderr is logged (its end). */
    static final int STDERR_TAIL = 500;

    private final int index;
    private final HookConfig config;
    private final HttpClient http;

    /** The hook's place under {@code hooks:}, from 0. */
    int index() {
        return index;
    }

    HookRun(int index, HookConfig config, HttpClient http) {
        this.index = index;
        this.config = config;
        this.http = http;
    }

    HookConfig config() {
        return config;
    }

    /** How log lines name this hook: {@code hooks[0] (command notify.sh)} or {@code hooks[1] (url example.org)}. */
    String name() {
        if (!config.command().isEmpty()) {
            Path program = Path.of(config.command().get(0)).getFileName();
            return "hooks[" + index + "] (command " + (program == null ? config.command().get(0) : program) + ")";
        }
        URI u = URI.create(config.url());
        return "hooks[" + index + "] (url " + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort()) + ")";
    }

    void run(HookEvent event, String payload) {
        long t0 = System.nanoTime();
        try {
            if (config.command().isEmpty()) {
                post(event, payload, t0);
            } else {
                exec(event, payload, t0);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("hooks - {} on {} was cut off by the shutdown after {} ms", name(), event.wire(), ms(t0));
        } catch (IOException | RuntimeException e) {
            log.warn("hooks - {} on {} failed after {} ms: {}", name(), event.wire(), ms(t0), e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + oneLine(e.getMessage())));
        }
    }

    private void exec(HookEvent event, String payload, long t0) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(config.command()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("HERALD_EVENT", event.wire());
        Process p = pb.start();
        StderrTail stderr = new StderrTail(p.getErrorStream());
        Thread reader = Thread.ofVirtual().name("hook-stderr").start(stderr);
        try (OutputStream in = p.getOutputStream()) {
            in.write(payload.getBytes(StandardCharsets.UTF_8));
        } catch (IOException closedEarly) {
            // the command did not read its stdin: its exit code says whether it cared
        }
        boolean ended;
        try {
            ended = p.waitFor(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            kill(p);
            throw e;
        }
        if (!ended) {
            kill(p);
            log.warn("hooks - {} on {} timed out after {} ms (timeout_seconds {}); killed", name(), event.wire(), ms(t0),
                    dev.herald.core.config.ConfigChecks.number(config.timeoutSeconds()));
            return;
        }
        reader.join(1000);
        if (p.exitValue() != 0) {
            String tail = stderr.tail();
            log.warn("hooks - {} on {} exited with {} after {} ms{}", name(), event.wire(), p.exitValue(), ms(t0),
                    tail.isEmpty() ? " (no stderr)" : "; stderr ends: " + tail);
        } else {
            log.debug("hooks - {} on {} ran in {} ms", name(), event.wire(), ms(t0));
        }
    }

    private void post(HookEvent event, String payload, long t0) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(config.url())).timeout(config.timeout())
                .header("Content-Type", "application/json").header("User-Agent", "herald-hooks")
                .POST(HttpRequest.BodyPublishers.ofString(payload, StandardCharsets.UTF_8));
        for (Map.Entry<String, Secret> h : config.headers().entrySet()) {
            h.getValue().reveal().ifPresent(v -> b.header(h.getKey(), v));
        }
        try {
            HttpResponse<Void> r = http.send(b.build(), HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 != 2) {
                log.warn("hooks - {} on {} answered HTTP {} after {} ms", name(), event.wire(), r.statusCode(), ms(t0));
            } else {
                log.debug("hooks - {} on {} answered HTTP {} in {} ms", name(), event.wire(), r.statusCode(), ms(t0));
            }
        } catch (HttpTimeoutException e) {
            log.warn("hooks - {} on {} timed out after {} ms (timeout_seconds {})", name(), event.wire(), ms(t0),
                    dev.herald.core.config.ConfigChecks.number(config.timeoutSeconds()));
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static String oneLine(String s) {
        String line = s.replaceAll("\\s+", " ").strip();
        return line.length() <= STDERR_TAIL ? line : "..." + line.substring(line.length() - STDERR_TAIL);
    }

    /** Reads a command's stderr to its end, keeping its last bytes. */
    private static final class StderrTail implements Runnable {
        private final InputStream in;
        private final byte[] ring = new byte[4096];
        private long total;

        StderrTail(InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            byte[] buf = new byte[1024];
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    synchronized (this) {
                        for (int i = 0; i < n; i++) {
                            ring[(int) (total++ % ring.length)] = buf[i];
                        }
                    }
                }
            } catch (IOException gone) {
                // the process was killed: what was read is kept
            }
        }

        synchronized String tail() {
            int len = (int) Math.min(total, ring.length);
            byte[] out = new byte[len];
            for (int i = 0; i < len; i++) {
                out[i] = ring[(int) ((total - len + i) % ring.length)];
            }
            return oneLine(new String(out, StandardCharsets.UTF_8));
        }
    }
}
