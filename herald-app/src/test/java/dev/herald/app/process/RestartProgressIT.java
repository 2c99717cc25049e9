package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald restart} on a real {@code herald run} process says what it waits for instead of staying silent. */
class RestartProgressIT {
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path home;
    final FakeModelServer model = FakeModelServer.start();
    HeraldProcess herald;

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    @Test
    void restartDuringATurn_printsTheDrainWithTurnsRunningAndSecondsLeft_thenTheNewPid() throws Exception {
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 3\nrestart_mode: drain", null);
        herald.start();
        long before = herald.awaitReady();
        Hold hold = model.enqueueHeld(Reply.text("never sent"));
        herald.chat("deploy", "deploy the site");
        hold.awaitArrived(WAIT);
        model.enqueue(Reply.text("deployed"));
        StringWriter out = new StringWriter();

        int rc = Main.run(new CliEnvironment(Map.of(), home, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true)),
                "restart", "--home", home.toString(), "--timeout", "60");

        assertThat(rc).isZero();
        long after = herald.awaitReady(before);
        String printed = out.toString();
        assertThat(printed).contains("herald restart - asked pid " + before + " to restart; it drains running turns first (up to 3 s)")
                .containsPattern("herald restart - pid " + before + " draining: 1 turn still running, at most [0-3] s of the drain left")
                .contains("herald restart - restarted: pid " + before + " -> " + after);
    }

    @Test
    void restartDuringATurn_byHandover_saysTheNewProcessStartsFirst_thenTheNewPid_andThatTheOldOneFinishes() throws Exception {
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 3", null);
        herald.start();
        long before = herald.awaitReady();
        Hold hold = model.enqueueHeld(Reply.text("deployed"));
        herald.chat("deploy", "deploy the site");
        hold.awaitArrived(WAIT);
        StringWriter out = new StringWriter();

        int rc = Main.run(new CliEnvironment(Map.of(), home, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true)),
                "restart", "--home", home.toString(), "--timeout", "60");
        hold.release();

        assertThat(rc).isZero();
        long after = herald.awaitReady(before);
        assertThat(out.toString()).contains("herald restart - asked pid " + before + " to restart; the new process starts first, then pid "
                        + before + " lets its running turns finish (up to 3 s) and exits")
                .contains("herald restart - restarted: pid " + before + " -> " + after)
                .doesNotContain("drain left");
    }
}
