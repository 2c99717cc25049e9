package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * A model stream cut mid-answer, seen by a chat user through the real gateway (SQLite store, store invariants checked
 * after each test), the real agent and client, and the scripted model server: a chunked body that stops after three
 * chunks, a stall past the idle timeout, a body that ends without {@code [DONE]} and without a finish reason. On a
 * platform that shows only the reply, the model is asked again and the user gets the whole answer once; on one that
 * streams, the user sees the part that came with a notice that it is incomplete, and the turn ends {@code partial}.
 */
class CutOffAnswerTest {
    static final String WHOLE = "ECHO: u02-m0005 oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee";
    static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final GatewayHarness kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), Clock.systemUTC());

    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(
            new ModelSettings(model.baseUrl(), null, "llama3.1", Duration.ofSeconds(2), Duration.ofMillis(1_500), 2), Harness.FAST);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger agentLog = (Logger) LoggerFactory.getLogger(ModelAgent.class);

    @BeforeEach
    void captureLogs() {
        logs.start();
        agentLog.addAppender(logs);
    }

    @AfterEach
    void tearDown() {
        agentLog.detachAppender(logs);
        client.close();
        model.close();
    }

    /** The three ways a stream breaks off, each after the first three words of {@link #WHOLE}. */
    enum Cut {
        DROPPED, STALLED, ENDED_EARLY;

        void enqueue(FakeModelServer model) {
            switch (this) {
                case DROPPED -> model.enqueue(Reply.text(WHOLE).droppedAfter(3));
                case STALLED -> model.enqueueHeld(Reply.text(WHOLE), 3);
                case ENDED_EARLY -> model.enqueue(Reply.rawLines(chunk("ECHO: "), "", chunk("u02-m0005 "), "", chunk("oscar "), ""));
            }
        }

        private static String chunk(String content) {
            return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                    + content + "\"},\"finish_reason\":null}]}";
        }
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void turn_modelStreamCutOff_onAPlatformThatShowsOnlyTheReply_isAskedAgainAndTheUserGetsTheWholeAnswerOnce(Cut cut) {
        LoopbackPlatform chat = start(false);
        cut.enqueue(model);
        model.enqueue(Reply.text(WHOLE));
        SessionSource user = dm(chat);

        chat.say(user, "u02-m0005 oscar");

        TurnRecord turn = awaitDelivered(user);
        assertThat(chat.sent()).hasSize(1);
        assertThat(chat.sent().getFirst().message().kind()).isEqualTo(MessageKind.REPLY);
        assertThat(chat.sent().getFirst().text()).isEqualTo(WHOLE);
        assertThat(turn.outcome()).isEqualTo("final");
        assertThat(model.requests()).as("the cut stream was asked again").hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void turn_modelStreamCutOff_afterTheChatShowedPartOfIt_deliversThePartWithANoticeAndEndsPartial(Cut cut) {
        LoopbackPlatform chat = start(true);
        cut.enqueue(model);
        model.enqueue(Reply.text("a second answer must not be asked for"));
        SessionSource user = dm(chat);
        SessionKey key = SessionKey.of(user);
        kit.storage().sessions().getOrCreate(key, user);
        kit.storage().sessions().markResumePending(key);

        chat.say(user, "u02-m0005 oscar");

        TurnRecord turn = awaitDelivered(user);
        String notice = cut == Cut.STALLED ? "the model stopped sending mid-answer" : "the model's answer broke off";
        String expected = "ECHO: u02-m0005 oscar\n\n(This answer is incomplete: " + notice
                + ". Send your message again for a complete answer.)";
        assertThat(chat.progressEvents()).as("what the chat showed as it streamed").containsExactly(new StreamEvent.TextDelta("ECHO: "),
                new StreamEvent.TextDelta("u02-m0005 "), new StreamEvent.TextDelta("oscar "));
        assertThat(chat.sent()).hasSize(1);
        assertThat(chat.sent().getFirst().message().kind()).isEqualTo(MessageKind.CUT_OFF_REPLY);
        assertThat(chat.sent().getFirst().text()).isEqualTo(expected);
        assertThat(turn.outcome()).isEqualTo("partial");
        assertThat(lastAssistantRow(turn)).as("the transcript holds what the user read").isEqualTo(expected);
        assertThat(kit.storage().sessions().find(key).orElseThrow().resumePending()).as("a cut-off answer clears no resume mark").isTrue();
        assertThat(model.requests()).as("the part was shown, so the model was not asked again").hasSize(1);
        assertThat(logs.list).map(ILoggingEvent::getFormattedMessage).anySatisfy(line -> assertThat(line)
                .startsWith("agent - the answer was cut off after 22 characters (shown as it streamed, so not asked again); delivered "
                        + "with a notice that it is incomplete, outcome partial")
                .contains(cut == Cut.STALLED ? "went silent mid-reply" : "after 3 chunks (22 characters)"));
    }

    private LoopbackPlatform start(boolean streaming) {
        Platform platform = Platform.of("telegram");
        LoopbackPlatform chat = new LoopbackPlatform(platform, new Capabilities(true, false, streaming, false, streaming, 4096), kit.clock());
        Gateway gateway = kit.gateway(new ModelAgent(client), new Allowlists(Map.of(platform, AccessPolicy.allowAll()), false), List.of(chat),
                List.of(), GatewaySettings.defaults(), GatewayMetrics.NONE);
        gateway.start(Gateway.StartOptions.normal());
        return chat;
    }

    private static SessionSource dm(LoopbackPlatform chat) {
        return new SessionSource(chat.platform(), "chat-u02", ChatType.DM, "u02", null, null, null);
    }

    private TurnRecord awaitDelivered(SessionSource user) {
        SessionKey key = SessionKey.of(user);
        await().atMost(WAIT).until(() -> kit.storage().turns().latestStarted(key).map(t -> t.state() == TurnState.DELIVERED).orElse(false));
        return kit.storage().turns().latestStarted(key).orElseThrow();
    }

    private String lastAssistantRow(TurnRecord turn) {
        List<TranscriptRow> rows = kit.storage().transcripts().load(turn.sessionId());
        return rows.stream().filter(r -> r.role() == Role.ASSISTANT).reduce((a, b) -> b).orElseThrow().content();
    }
}
