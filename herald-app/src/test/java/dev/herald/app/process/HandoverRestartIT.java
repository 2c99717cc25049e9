package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Restarts that interrupt nothing (issue 11, item 5), on SQLite and on PostgreSQL: {@code herald restart} during a held
 * turn starts the new process first; the old one stops listening, finishes the turn and answers it once (no recovery
 * note, nothing interrupted), a message sent during the overlap is answered once by the new one, and {@code /health},
 * polled every 50 ms on fresh connections, never finds the port closed.
 */
class HandoverRestartIT {
    static final Duration WAIT = Duration.ofSeconds(90);
    static final String NOTE = "[System note:";

    @TempDir
    Path home;
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    FakeModelServer model;
    HeraldProcess herald;

    @BeforeEach
    void setUp() {
        model = FakeModelServer.start();
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void heraldRestart_duringAHeldTurn_theOldProcessAnswersItOnce_andTheNewOneServesMeanwhile(String store) throws Exception {
        String extra = store.equals("sqlite") ? null : "store:\n  url: " + db.url() + "\n  user: postgres\n";
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 60", extra);
        herald.start();
        long before = herald.awaitReady();
        Hold hold = model.enqueueHeld(Reply.text("the report is done"));
        CompletableFuture<HttpResponse<String>> held = herald.chat("report", "write the report");
        hold.awaitArrived(WAIT);
        Health health = new Health(herald.port);

        int rc = Main.run(cli(), "restart", "--home", home.toString(), "--timeout", "80");
        long after = herald.awaitReady(before);
        String overlap = answer(herald.chat("other", "a question during the overlap").get());
        boolean oldStillServing = HeraldProcess.alive(before);
        hold.release();
        String report = answer(held.get());
        awaitExit(before);
        Thread.sleep(1_500);
        health.stop();

        assertThat(rc).isZero();
        assertThat(after).isNotEqualTo(before);
        assertThat(oldStillServing).as("the old process still ran its turn while the new one answered").isTrue();
        assertThat(report).isEqualTo("the report is done");
        assertThat(overlap).isEqualTo("echo: a question during the overlap");
        assertThat(model.requests()).as("no recovery note: nothing was interrupted")
                .noneMatch(r -> r.lastUserMessage().startsWith(NOTE));
        assertThat(model.requests()).filteredOn(r -> "write the report".equals(r.lastUserMessage())).hasSize(1);
        assertThat(model.requests()).filteredOn(r -> "a question during the overlap".equals(r.lastUserMessage())).hasSize(1);
        assertThat(count(store, "SELECT COUNT(*) FROM turns WHERE state = 'INTERRUPTED' OR origin = 'RESUME'")).isZero();
        assertThat(count(store, "SELECT COUNT(*) FROM turns WHERE state = 'DELIVERED'")).isEqualTo(2);
        assertThat(health.polls.get()).as("health polls during the restart").isGreaterThan(20);
        assertThat(health.failures.get()).as("polls that found the port closed or got no answer: " + health.lastFailure).isZero();
        assertThat(herald.running()).as("the supervisor runs on with the new process").isTrue();
        assertThat(home.resolve(".clean_shutdown")).doesNotExist();
    }

    private String answer(HttpResponse<String> response) throws IOException {
        try {
            return HeraldProcess.answer(response);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + herald.output(), e);
        }
    }

    private long count(String store, String sql) throws Exception {
        String url = store.equals("sqlite") ? "jdbc:sqlite:" + home.resolve("herald.db") : db.url();
        try (var c = store.equals("sqlite") ? DriverManager.getConnection(url) : DriverManager.getConnection(url, "postgres", null);
                var s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void awaitExit(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (HeraldProcess.alive(pid) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(HeraldProcess.alive(pid)).as("the old process left").isFalse();
    }

    /** Polls {@code GET /health} every 50 ms, each time on a new connection, counting what did not answer 200. */
    static final class Health {
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        volatile String lastFailure = "none";
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;

        Health(int port) {
            thread = Thread.ofVirtual().start(() -> {
                while (!stop.get()) {
                    polls.incrementAndGet();
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
                        s.setSoTimeout(5_000);
                        OutputStream out = s.getOutputStream();
                        out.write(("GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        InputStream in = s.getInputStream();
                        String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
                        if (!status.equals("HTTP/1.1 200")) {
                            failures.incrementAndGet();
                            lastFailure = "status " + status;
                        }
                    } catch (IOException e) {
                        failures.incrementAndGet();
                        lastFailure = e.toString();
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        void stop() throws InterruptedException {
            stop.set(true);
            thread.join();
        }
    }

    private static CliEnvironment cli() {
        return new CliEnvironment(Map.of(), Path.of(System.getProperty("user.home")), new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
    }
}
