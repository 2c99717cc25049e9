package dev.herald.platforms.mattermost;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.mattermost.FakeMattermost.ALICE;
import static dev.herald.platforms.mattermost.FakeMattermost.TOWN_SQUARE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.CrashPoints;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Delivery on Mattermost across drops, restarts and crashes: posts made while Herald's websocket was down (or Herald
 * itself was) are read by catch-up and answered once; a reply part resent after a crash carries the same
 * {@code pending_post_id}, so the server answers it with the post it already made; a turn cut off by a crash is resumed
 * once, in its thread; a post that arrives while the store cannot write is held and answered once.
 */
class MattermostDeliveryTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeMattermost mm = new FakeMattermost();
    @RegisterExtension
    final GatewayFixture herald = mm.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void postsMadeWhileTheWebsocketWasDown_areCaughtUpAfterTheReconnect_andAnsweredOnce() {
        herald.start();
        String dm = mm.dm(ALICE);
        mm.say(ALICE, dm, "before the cut");
        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 1);

        mm.refuseSockets = true;
        mm.dropSockets();
        mm.say(ALICE, dm, "while you were away");
        mm.say(ALICE, TOWN_SQUARE, "@herald and here too");
        mm.say(ALICE, TOWN_SQUARE, "not for the bot");
        mm.refuseSockets = false;

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(dm).size() == 2 && mm.botPosts(TOWN_SQUARE).size() == 1);
        assertThat(mm.botMessages(dm)).containsExactly("echo: before the cut", "echo: while you were away");
        assertThat(mm.botMessages(TOWN_SQUARE)).containsExactly("echo: and here too");
        // two channels are two sessions, run side by side: each is answered once, in no order between them
        assertThat(herald.agent.messages()).containsExactlyInAnyOrder("before the cut", "while you were away", "and here too");
        assertThat(herald.agent.messages().getFirst()).isEqualTo("before the cut");
        assertThat(mm.sinceQueries).as("catch-up asked for posts since the last one read").isNotEmpty();
    }

    @Test
    void postsMadeWhileHeraldWasStopped_areAnsweredOnceByTheNextProcess_andEarlierOnesAreNotAnsweredAgain() {
        herald.start();
        String dm = mm.dm(ALICE);
        mm.say(ALICE, dm, "first");
        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 1);
        herald.stop(StopKind.SHUTDOWN);

        mm.say(ALICE, dm, "while you slept");
        herald.restart();

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botMessages(dm).contains("echo: while you slept"));
        assertThat(mm.botMessages(dm)).filteredOn(m -> m.startsWith("echo:")).containsExactly("echo: first", "echo: while you slept");
        assertThat(herald.agent.messages()).as("the new process ran one turn").containsExactly("while you slept");
    }

    @Test
    void theFirstStartEver_doesNotAnswerHistory() {
        String dm = mm.dm(ALICE);
        mm.say(ALICE, dm, "an old post from before Herald");

        herald.start();
        mm.say(ALICE, dm, "a new one");

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(dm).size() == 1);
        assertThat(herald.agent.messages()).containsExactly("a new one");
    }

    @Test
    void aCrashBetweenSendAndAnswer_isResentWithTheSamePendingPostId_andTheChannelHasOnePost() {
        mm.answerDelay = Duration.ofMillis(150); // a slow server: the post exists well before its answer arrives
        herald.start();
        String dm = mm.dm(ALICE);
        herald.agent.reply("the one answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            mm.say(ALICE, dm, "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(turnOf("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).as("handed to Mattermost, no answer recorded")
                .containsExactly(TurnState.AWAITING_DELIVERY, 1);
        ObjectNode created = mm.botPosts(dm).getFirst();
        herald.crash(); // the server made the post; Herald never recorded its answer
        mm.answerDelay = Duration.ZERO;
        herald.start();

        await().atMost(WAIT).until(() -> turnOf("question").state() == TurnState.DELIVERED);
        assertThat(mm.botPosts(dm)).as("one post in the channel").singleElement()
                .satisfies(p -> assertThat(p.path("message").asText()).isEqualTo("the one answer"));
        assertThat(mm.pendingReplays).as("the resend was answered with the first post").hasValue(1);
        assertThat(turnOf("question").replyMessageId()).isEqualTo(created.path("id").asText());
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void aCrashDuringATurnInAThread_isResumedByTheNextProcess_inThatThread_andAnsweredOnce() {
        herald.home(new HomeChannel(MattermostAdapter.PLATFORM, ChatTarget.of(TOWN_SQUARE), "town square"));
        herald.start();
        ObjectNode root = mm.say(ALICE, TOWN_SQUARE, "a thread");
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        mm.say(ALICE, TOWN_SQUARE, "@herald work on this", root.path("id").asText());
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botMessages(TOWN_SQUARE).contains("resumed after the crash"));
        assertThat(mm.botPosts(TOWN_SQUARE)).filteredOn(p -> p.path("message").asText().equals("resumed after the crash")).singleElement()
                .satisfies(p -> assertThat(p.path("root_id").asText()).as("the resumed answer goes to the thread").isEqualTo(root.path("id").asText()));
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aPostWhileTheDiskIsFull_isHeld_andAnsweredOnceTheStoreWritesAgain() {
        herald.start();
        String dm = mm.dm(ALICE);
        herald.fillDisk();

        mm.say(ALICE, dm, "question");
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> herald.turns().isEmpty());
        herald.freeDisk();

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(dm).size() == 1);
        assertThat(mm.botMessages(dm)).containsExactly("echo: question");
    }
}
