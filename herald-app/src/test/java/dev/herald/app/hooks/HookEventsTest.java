package dev.herald.app.hooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.herald.app.hooks.HookConfig;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The events a live turn rarely shows (a failure, an approval question), told to a URL hook directly. */
class HookEventsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aFailedTurnAndAnApprovalQuestion_reachTheHook_withTheToolAndReason_butNeverTheCommandOrMessage() throws Exception {
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
        try {
            HookConfig config = new HookConfig(List.of("turn.failed", "approval.requested"), List.of(),
                    "http://127.0.0.1:" + server.getAddress().getPort() + "/h", Map.of(), 5);
            SessionSource src = SessionSource.dm(Platform.of("loopback"), "chat-7", "user-7");
            TurnRecord turn = new TurnRecord(9, new SessionKey("agent:main:loopback:dm:chat-7"), "e9", src, "delete my secret-diary",
                    null, null, MessageEvent.Origin.USER, TurnState.RUNNING, "s-1", null, null, null, Instant.EPOCH, Instant.EPOCH);
            Hooks hooks = new Hooks(List.of(config), Clock.systemUTC()).node(() -> "node-a");
            hooks.turnEnded(turn, new TurnOutcome.Final("done"), 1_000_000); // turn.completed: not subscribed
            hooks.approvalRequested(turn, new ApprovalRequest("call-1", "shell", "rm -rf ~/secret-diary", "runs a shell command"));
            hooks.turnEnded(turn, new TurnOutcome.Errored("Sorry", "the model at http://127.0.0.1:1 broke"), 5_000_000);
            hooks.close(); // lets what is queued run first

            assertThat(bodies).hasSize(2);
            JsonNode approval = bodies.stream().map(HookEventsTest::tree).filter(j -> j.get("event").asText().equals("approval.requested"))
                    .findFirst().orElseThrow();
            assertThat(approval.get("tool").asText()).isEqualTo("shell");
            assertThat(approval.get("reason").asText()).isEqualTo("runs a shell command");
            assertThat(approval.get("chat_id").asText()).isEqualTo("chat-7");
            assertThat(approval.get("user_id").asText()).isEqualTo("user-7");
            assertThat(approval.get("node").asText()).isEqualTo("node-a");
            JsonNode failed = bodies.stream().map(HookEventsTest::tree).filter(j -> j.get("event").asText().equals("turn.failed"))
                    .findFirst().orElseThrow();
            assertThat(failed.get("outcome").asText()).isEqualTo("error");
            assertThat(failed.get("duration_ms").asLong()).isEqualTo(5);
            assertThat(failed.get("turn_id").asLong()).isEqualTo(9);
            assertThat(failed.get("session_id").asText()).isEqualTo("s-1");
            assertThat(String.join("\n", bodies)).doesNotContain("secret-diary").doesNotContain("127.0.0.1:1").doesNotContain("Sorry");
        } finally {
            server.stop(0);
        }
    }

    private static JsonNode tree(String s) {
        try {
            return JSON.readTree(s);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
