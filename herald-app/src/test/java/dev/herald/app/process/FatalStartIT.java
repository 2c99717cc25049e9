package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.model.FakeModelServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors that no restart can cure, found only when {@code herald run} starts: the supervised process exits 78 within
 * 15 s with one line saying what is wrong, instead of being restarted forever with a stack trace each time, and
 * leaves what the previous run left (its clean-stop marker, the database file) as it was.
 */
class FatalStartIT {
    static final Duration FATAL_EXIT = Duration.ofSeconds(15);

    @TempDir
    Path home;
    FakeModelServer model;
    HeraldProcess herald;

    @BeforeEach
    void setUp() throws Exception {
        model = FakeModelServer.start();
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 1", null);
    }

    @AfterEach
    void tearDown() {
        herald.close();
        model.close();
    }

    /** Asserts exit 78 within the bound, the line, no stack trace, and that the supervisor said it would not restart. */
    private String assertFatal(String line) throws Exception {
        int exit = herald.start().awaitExit(FATAL_EXIT);
        String out = herald.output();
        assertThat(exit).as(out).isEqualTo(78);
        assertThat(out).contains(line).doesNotContain("\tat ").doesNotContain("Caused by");
        return out;
    }

    @Test
    void portInUse_exits78WithinBound_namingThePort_andKeepsTheCleanStopMarker() throws Exception {
        Files.writeString(home.resolve(".clean_shutdown"), "2026-12-01T10:00:00Z\n");
        try (ServerSocket taken = new ServerSocket(herald.port, 50, InetAddress.getLoopbackAddress())) {
            String out = assertFatal("web - cannot listen on 127.0.0.1:" + herald.port);

            assertThat(out).contains("not restarting it");
        }
        assertThat(home.resolve(".clean_shutdown")).as("nothing ran, so the previous clean stop still counts").exists();
        assertThat(home.resolve("gateway.pid")).doesNotExist();
    }

    @Test
    void corruptDatabase_exits78WithinBound_andTheFileIsLeftAsItWas() throws Exception {
        byte[] garbage = "this was never a SQLite database, but it may be someone's only copy\n".repeat(200).getBytes();
        Files.write(home.resolve("herald.db"), garbage);

        assertFatal("store - " + home.resolve("herald.db") + " could not be opened as a Herald database");

        assertThat(Files.readAllBytes(home.resolve("herald.db"))).isEqualTo(garbage);
    }

    @Test
    void credentialsInTheModelUrl_exit78WithinBound_withoutPrintingThem() throws Exception {
        herald.rewriteConfig("base_url: http://", "base_url: http://herald:pl41n-t3xt@");

        String out = assertFatal("model.base_url must not carry credentials in the URL");

        assertThat(out).doesNotContain("pl41n-t3xt").doesNotContain("herald:");
        assertThat(home.resolve("herald.db")).as("refused before anything was created").doesNotExist();
    }
}
