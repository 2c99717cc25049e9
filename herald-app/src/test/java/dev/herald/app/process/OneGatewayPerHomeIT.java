package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code herald run} on one home: the second stops at once (exit 78) naming the running gateway, and the first
 * does not notice: its pid file, status file and crash record stay its own, and its running turn is answered once,
 * not "recovered" by the second.
 */
class OneGatewayPerHomeIT {
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path home;
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

    @Test
    void aSecondGatewayOnOneHome_exits78NamingTheFirst_andTheFirstKeepsServingUntouched() throws Exception {
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 5", null);
        Process firstSupervisor = herald.start().process();
        long first = herald.awaitReady();
        Hold hold = model.enqueueHeld(Reply.text("the report is done"));
        CompletableFuture<HttpResponse<String>> running = herald.chat("report", "write the report");
        hold.awaitArrived(WAIT);
        String pidFile = Files.readString(home.resolve("gateway.pid"));
        String crashRecord = Files.readString(home.resolve("unclean_starts.log"));

        herald.start();
        int exit = herald.awaitExit(Duration.ofSeconds(30));

        String second = herald.output().substring(herald.output().indexOf("---- out-2.log"));
        assertThat(exit).isEqualTo(78);
        assertThat(second).contains("store - " + home.resolve("herald.db") + " is in use by another Herald gateway (pid " + first + " on ")
                .contains("; run one gateway per database").doesNotContain("\tat ");
        assertThat(Files.readString(home.resolve("gateway.pid"))).isEqualTo(pidFile);
        assertThat(Files.readString(home.resolve("unclean_starts.log"))).isEqualTo(crashRecord);
        assertThat(herald.state().path("pid").asLong()).isEqualTo(first);
        assertThat(home.resolve(".clean_shutdown")).doesNotExist();

        hold.release();
        assertThat(HeraldProcess.answer(running.get())).isEqualTo("the report is done");
        assertThat(firstSupervisor.isAlive()).isTrue();
        assertThat(HeraldProcess.alive(first)).isTrue();
        assertThat(herald.state().path("state").asText()).isEqualTo("running");
        assertThat(model.requests()).as("the held turn was sent to the model once, never resumed by the second gateway")
                .filteredOn(r -> r.messages().stream().anyMatch(m -> "write the report".equals(m.content()))).hasSize(1);
    }
}
