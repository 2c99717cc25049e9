package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.BackgroundChats;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.side.BackgroundPlatform;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * /steer, /btw, /bg and /busy as a chat user meets them, through the real gateway (SQLite store, store invariants checked
 * after each test), the real agent and client, and the scripted model server. A tool that waits until the test lets it go
 * ({@code gate}) keeps a turn running between two model calls.
 */
class SideCommandsTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final Platform TELEGRAM = Platform.of("telegram");

    @RegisterExtension
    final GatewayHarness kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), Clock.systemUTC());

    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(model);
    private final Gate gate = new Gate();
    private final SessionSource alice = new SessionSource(TELEGRAM, "chat-a", ChatType.DM, "u-a", null, null, null);
    private Gateway gateway;
    private LoopbackPlatform chat;

    @AfterEach
    void tearDown() {
        gate.open.countDown();
        client.close();
        model.close();
    }

    @Test
    void steer_whileAToolRuns_reachesTheModelOnTheTurnsNextCall_asAUserMessageMarkedSteer() {
        start();
        model.enqueue(Reply.toolCalls(Reply.ToolCall.of("gate", "{}")), Reply.text("Done, and bananas mentioned."));
        chat.say(alice, "do the long job");
        gate.awaitArrival();

        chat.say(alice, "/steer also mention bananas");
        chat.awaitSent(t -> t.startsWith("\u21aa Steering"), WAIT);
        gate.open.countDown();

        chat.awaitSent("Done, and bananas mentioned."::equals, WAIT);
        List<RecordedRequest> requests = model.requests();
        assertThat(requests).as("the steer joined the turn: no turn of its own").hasSize(2);
        List<RecordedRequest.Message> second = requests.get(1).messages();
        assertThat(second.getLast().role()).isEqualTo("user");
        assertThat(second.getLast().content()).isEqualTo("[steer] also mention bananas");
        assertThat(second.get(second.size() - 2).role()).as("after the tool's result").isEqualTo("tool");
        assertThat(rows()).extracting(TranscriptRow::content).contains("[steer] also mention bananas");
        assertThat(chat.sentMatching(t -> t.startsWith("Done"))).hasSize(1);

        await().atMost(WAIT).until(() -> gateway.activeTurns().isEmpty());
        model.enqueue(Reply.text("Asked again."));
        chat.say(alice, "/retry");
        assertThat(chat.awaitSent(t -> t.startsWith("\ud83d\udd01"), WAIT).text()).as("/retry asks the turn's message, not the steer")
                .contains("do the long job");
        chat.awaitSent("Asked again."::equals, WAIT);
    }

    @Test
    void steer_readByATurnThatACrashCutsOff_isReadAgainByTheResumedTurn() {
        start();
        model.enqueue(Reply.toolCalls(Reply.ToolCall.of("gate", "{}")));
        Hold second = model.enqueueHeld(Reply.text("the first process's answer"));
        chat.say(alice, "do the long job");
        gate.awaitArrival();
        chat.say(alice, "/steer also mention bananas");
        chat.awaitSent(t -> t.startsWith("\u21aa Steering"), WAIT);
        gate.open.countDown();
        assertThat(second.awaitArrived(WAIT).lastUserMessage()).isEqualTo("[steer] also mention bananas");

        kit.nextProcess(); // kill -9 during the model call that read the steer
        model.enqueue(Reply.text("Resumed, with bananas."));
        start();

        chat.awaitSent("Resumed, with bananas."::equals, WAIT);
        assertThat(model.requests().getLast().messages()).extracting(RecordedRequest.Message::content)
                .contains("do the long job", "[steer] also mention bananas");
        second.drop();
    }

    @Test
    void steer_withNothingRunning_isAnOrdinaryMessage() {
        start();
        model.enqueue(Reply.text("Hello to you."));

        chat.say(alice, "/steer hello");

        chat.awaitSent("Hello to you."::equals, WAIT);
        assertThat(model.lastRequest().lastUserMessage()).isEqualTo("hello");
        assertThat(chat.sentMatching(t -> t.startsWith("\u21aa"))).isEmpty();
    }

    @Test
    void btw_answersFromTheTranscriptWithoutTools_andTheModelNeverSeesItAgain() {
        start();
        model.enqueue(Reply.text("Paris."));
        chat.say(alice, "capital of France?");
        chat.awaitSent("Paris."::equals, WAIT);
        model.enqueue(Reply.toolCalls(Reply.ToolCall.of("gate", "{}")), Reply.text("You first asked about France."),
                Reply.text("Long job done."));
        chat.say(alice, "do the long job");
        gate.awaitArrival();
        int rowsBefore = rows().size();

        chat.say(alice, "/btw what did I ask first?");

        assertThat(chat.awaitSent(t -> t.startsWith("\ud83d\udcac"), WAIT).text()).isEqualTo("\ud83d\udcac (aside) You first asked about France.");
        RecordedRequest aside = model.requests().get(2);
        assertThat(aside.toolNames()).as("a side answer runs no tools").isEmpty();
        assertThat(aside.messages()).extracting(RecordedRequest.Message::content).contains("capital of France?", "Paris.",
                "do the long job", "what did I ask first?");
        assertThat(rows()).as("nothing of the aside is stored").hasSize(rowsBefore);
        gate.open.countDown();
        chat.awaitSent("Long job done."::equals, WAIT);
        assertThat(model.requests().get(3).messages()).extracting(RecordedRequest.Message::content)
                .doesNotContain("what did I ask first?", "You first asked about France.");
        assertThat(rows()).extracting(TranscriptRow::content).doesNotContain("what did I ask first?", "You first asked about France.");
    }

    @Test
    void bg_runsInItsOwnSession_isListedByStatus_andPostsItsAnswerBackHere() {
        start();
        kit.storage().chatPreferences().set(SessionKey.of(alice), dev.herald.agent.persona.Personas.PREFERENCE, "astronomer");
        Hold held = model.enqueueHeld(Reply.text("About 100 billion stars."));

        chat.say(alice, "/bg count the stars", "m-bg");

        assertThat(chat.awaitSent(t -> t.startsWith("\ud83d\udd19 Background task 1 started"), WAIT).text()).contains("/bg stop 1");
        held.awaitArrived(WAIT);
        chat.say(alice, "/status");
        assertThat(chat.awaitSent(t -> t.startsWith("Session:"), WAIT).text())
                .contains("Background task 1: running \u2013 count the stars");
        held.release();
        assertThat(chat.awaitSent(t -> t.contains("100 billion"), WAIT).text())
                .isEqualTo("\ud83d\udd19 Background task 1:\nAbout 100 billion stars.");
        assertThat(model.requests().getFirst().lastUserMessage()).contains("count the stars");
        assertThat(kit.storage().sessions().find(SessionKey.of(alice))).as("the chat's own session is untouched").isEmpty();
        SessionKey task = kit.storage().turns().findByMessage(BackgroundChats.PLATFORM.id(), "bg:telegram:m-bg").orElseThrow().sessionKey();
        assertThat(kit.storage().chatPreferences().get(task, dev.herald.agent.persona.Personas.PREFERENCE)).as("the chat's persona")
                .contains("astronomer");
        await().atMost(WAIT).until(() -> kit.storage().turns().inState(TurnState.DELIVERED, 10).stream()
                .anyMatch(t -> t.source().platform().equals(BackgroundChats.PLATFORM)));
        chat.say(alice, "/bg");
        chat.awaitSent(t -> t.startsWith("No background tasks here."), WAIT);
    }

    @Test
    void bg_cutOffByACrash_isResumedAfterTheRestart_andItsAnswerPostedOnce() {
        start();
        Hold held = model.enqueueHeld(Reply.text("the first process's answer"));
        chat.say(alice, "/bg sum up the week");
        chat.awaitSent(t -> t.startsWith("\ud83d\udd19 Background task 1 started"), WAIT);
        held.awaitArrived(WAIT);
        LoopbackPlatform before = chat;

        kit.nextProcess(); // kill -9: the first process is abandoned mid-call
        model.enqueue(Reply.text("The week, summed up."));
        start();

        assertThat(chat.awaitSent(t -> t.contains("summed up"), WAIT).text()).isEqualTo("\ud83d\udd19 Background task 1:\nThe week, summed up.");
        assertThat(model.requests().getLast().messages()).extracting(RecordedRequest.Message::content)
                .anySatisfy(c -> assertThat(c).contains("sum up the week"));
        held.drop(); // the first process's call ends now: its turn was taken over, so it sends nothing
        await().atMost(WAIT).until(() -> kit.storage().turns().inState(TurnState.DELIVERED, 10).stream()
                .anyMatch(t -> t.source().platform().equals(BackgroundChats.PLATFORM)));
        assertThat(before.sentMatching(t -> t.contains("first process"))).isEmpty();
        assertThat(chat.sentMatching(t -> t.startsWith("\ud83d\udd19 Background task 1:"))).hasSize(1);
    }

    @Test
    void bgStop_interruptsTheTask_whichPostsNothing() {
        start();
        Hold held = model.enqueueHeld(Reply.text("never shown"));
        chat.say(alice, "/bg think for a very long time");
        chat.awaitSent(t -> t.startsWith("\ud83d\udd19 Background task 1 started"), WAIT);
        held.awaitArrived(WAIT);

        chat.say(alice, "/bg stop 1");

        chat.awaitSent("\u23f9 Background task 1 stopped."::equals, WAIT);
        await().atMost(WAIT).until(() -> taskTurn().state() == TurnState.INTERRUPTED);
        chat.say(alice, "/bg");
        chat.awaitSent(t -> t.startsWith("No background tasks here."), WAIT);
        assertThat(chat.sentMatching(t -> t.contains("never shown"))).isEmpty();
        assertThat(kit.storage().sessions().find(taskTurn().sessionKey()).orElseThrow().suspended()).isTrue();
    }

    @Test
    void busy_isKeptPerChatAcrossARestart_andSteerModeMakesAPlainMessageSteer() {
        start();
        chat.say(alice, "/help");
        assertThat(chat.awaitSent(t -> t.startsWith("Commands:"), WAIT).text().lines())
                .anySatisfy(l -> assertThat(l).startsWith("/steer <text> - "))
                .anySatisfy(l -> assertThat(l).startsWith("/btw <question> - "))
                .anySatisfy(l -> assertThat(l).startsWith("/bg <prompt> | /bg stop <n> - "))
                .anySatisfy(l -> assertThat(l).startsWith("/busy [queue|steer|interrupt] - "));
        chat.say(alice, "/busy");
        assertThat(chat.awaitSent(t -> t.startsWith("Busy mode here"), WAIT).text()).startsWith("Busy mode here: queue (the gateway's default)");
        chat.say(alice, "/busy steer");
        chat.awaitSent(t -> t.startsWith("\u2705 Busy mode: steer."), WAIT);
        chat.say(alice, "/busy sideways");
        chat.awaitSent(t -> t.startsWith("Unknown busy mode \u201csideways\u201d"), WAIT);

        gateway.stop(StopKind.RESTART, false);
        kit.nextProcess();
        start();
        chat.say(alice, "/busy");
        assertThat(chat.awaitSent(t -> t.startsWith("Busy mode here"), WAIT).text()).startsWith("Busy mode here: steer (chosen with /busy)");

        model.enqueue(Reply.toolCalls(Reply.ToolCall.of("gate", "{}")), Reply.text("Done, in green."));
        chat.say(alice, "paint the fence");
        gate.awaitArrival();
        chat.say(alice, "make it green", "m-green");
        await().atMost(WAIT).until(() -> kit.storage().turns().findByMessage(TELEGRAM.id(), "m-green").isPresent());
        gate.open.countDown();

        chat.awaitSent("Done, in green."::equals, WAIT);
        assertThat(model.requests()).hasSize(2);
        assertThat(model.requests().get(1).messages().getLast().content()).isEqualTo("[steer] make it green");
        assertThat(kit.storage().turns().findByMessage(TELEGRAM.id(), "m-green").orElseThrow().state()).isEqualTo(TurnState.CANCELLED);
    }

    private void start() {
        chat = new LoopbackPlatform(TELEGRAM, new Capabilities(true, false, false, false, false, 4096), kit.clock());
        ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(kit.home().resolve("ws"), List.of(gate)));
        gateway = kit.gateway(agent, new Allowlists(Map.of(TELEGRAM, AccessPolicy.allowAll(), BackgroundChats.PLATFORM, AccessPolicy.allowAll()),
                false), List.of(chat, new BackgroundPlatform()), List.of(), GatewaySettings.defaults(), GatewayMetrics.NONE);
        gateway.start(Gateway.StartOptions.normal());
    }

    private List<TranscriptRow> rows() {
        String session = kit.storage().sessions().find(SessionKey.of(alice)).orElseThrow().sessionId();
        return kit.storage().transcripts().load(session);
    }

    private TurnRecord taskTurn() {
        return kit.storage().turns().inState(TurnState.INTERRUPTED, 10).stream()
                .filter(t -> t.source().platform().equals(BackgroundChats.PLATFORM)).findFirst()
                .or(() -> kit.storage().turns().inState(TurnState.RUNNING, 10).stream()
                        .filter(t -> t.source().platform().equals(BackgroundChats.PLATFORM)).findFirst())
                .orElseThrow();
    }

    /** A tool that waits until the test opens it: a turn that calls it runs until then. */
    static final class Gate implements Tool {
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        void awaitArrival() {
            try {
                assertThat(arrived.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the gate tool was called").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        @Override
        public String name() {
            return "gate";
        }

        @Override
        public String description() {
            return "waits";
        }

        @Override
        public JsonNode parameters() {
            return Args.schema(new String[0], "x", "string", "anything");
        }

        @Override
        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        @Override
        public String summarize(JsonNode args) {
            return "gate";
        }

        @Override
        public ToolResult execute(JsonNode args, ToolContext context) {
            arrived.countDown();
            try {
                return open.await(WAIT.toSeconds(), TimeUnit.SECONDS) ? ToolResult.ok("opened") : ToolResult.ok("timed out");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ToolResult.interrupted("gate interrupted");
            }
        }
    }
}
