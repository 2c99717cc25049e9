package dev.herald.platforms.matrix;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.matrix.FakeMatrix.ALICE;
import static dev.herald.platforms.matrix.FakeMatrix.BOB;
import static dev.herald.platforms.matrix.FakeMatrix.BOT;
import static dev.herald.platforms.matrix.FakeMatrix.MALLORY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Matrix adapter in conversation: a real gateway and store, the real adapter, a fake homeserver. */
class MatrixConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeMatrix matrix = new FakeMatrix();
    @RegisterExtension
    final GatewayFixture herald = MatrixFixtures.herald(matrix);

    @Test
    void aDirectMessage_isAnsweredInTheRoom_withFormattedBody_andNoRawHtmlPassesThrough() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        herald.agent.reply("**Done**: see `x` and [the guide](https://docs.herald.invalid/g?a=1&b=2) <img src=x onerror=alert(1)>\n\n- one\n- two");

        String asked = matrix.text(dm, ALICE, "hi there");

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(dm).size() == 1);
        var reply = matrix.botEvents(dm).getFirst().content();
        assertThat(reply.path("msgtype").asText()).isEqualTo("m.text");
        assertThat(reply.path("body").asText()).startsWith("**Done**: see `x`");
        assertThat(reply.path("format").asText()).isEqualTo("org.matrix.custom.html");
        assertThat(reply.path("formatted_body").asText())
                .contains("<strong>Done</strong>", "<code>x</code>", "<a href=\"https://docs.herald.invalid/g?a=1&amp;b=2\">the guide</a>",
                        "&lt;img src=x onerror=alert(1)&gt;", "\u2022 one<br>\u2022 two")
                .doesNotContain("<img");
        assertThat(reply.path("m.relates_to").path("m.in_reply_to").path("event_id").asText()).isEqualTo(asked);
        assertThat(herald.agent.messages()).containsExactly("hi there");
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.sessionKey().value()).isEqualTo("agent:main:matrix:dm:" + dm);
            assertThat(t.platformMessageId()).isEqualTo(asked);
        });
        assertThat(matrix.requests("PUT", "/send/m.room.message/")).singleElement()
                .satisfies(r -> assertThat(r.path()).contains("/send/m.room.message/herald-"));
    }

    @Test
    void aGroupRoomMessage_isAnsweredOnlyWhenItMentionsTheBot_perUser() {
        String room = matrix.createRoom(ALICE, false, BOB, BOT);
        herald.start();

        matrix.text(room, ALICE, "just chatting with friends about heraldry");
        matrix.text(room, ALICE, "Herald: what is 2+2?");
        ObjectNode pill = FakeMatrix.content("what time is it?");
        pill.putObject("m.mentions").putArray("user_ids").add(BOT);
        matrix.say(room, BOB, pill);

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(room).size() == 2);
        assertThat(herald.agent.messages()).containsExactlyInAnyOrder("what is 2+2?", "what time is it?");
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsExactlyInAnyOrder(
                "agent:main:matrix:group:" + room + ":" + ALICE, "agent:main:matrix:group:" + room + ":" + BOB);
    }

    @Test
    void aThreadMessage_isItsOwnSession_andTheReplyStaysInTheThread() {
        String room = matrix.createRoom(ALICE, false, BOB, BOT);
        herald.start();
        String root = matrix.text(room, ALICE, "Herald, let us plan the release");
        await().atMost(WAIT).until(() -> matrix.botEvents(room).size() == 1);

        String inThread = matrix.say(room, ALICE, FakeMatrix.inThread("@herald:herald.test step two?", root));

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(room).size() == 2);
        var rel = matrix.botEvents(room).get(1).content().path("m.relates_to");
        assertThat(rel.path("rel_type").asText()).isEqualTo("m.thread");
        assertThat(rel.path("event_id").asText()).isEqualTo(root);
        assertThat(rel.path("m.in_reply_to").path("event_id").asText()).isEqualTo(inThread);
        assertThat(herald.agent.messages()).containsExactly("let us plan the release", "step two?");
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsExactly(
                "agent:main:matrix:group:" + room + ":" + ALICE, "agent:main:matrix:thread:" + room + ":" + root);
    }

    @Test
    void anUnknownUser_getsNoReplyInARoom_andAPairingCodeInADirectChat() {
        String room = matrix.createRoom(ALICE, false, MALLORY, BOT);
        String dm = matrix.createRoom(MALLORY, false, BOT);
        herald.start();

        matrix.text(room, MALLORY, "Herald: let me in");
        matrix.text(dm, MALLORY, "hello?");

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(dm).size() == 1);
        assertThat(matrix.botEvents(dm).getFirst().body()).contains("herald pairing approve matrix ");
        assertThat(matrix.botEvents(room)).isEmpty();
        assertThat(herald.turns()).isEmpty();
    }

    @Test
    void invites_fromAllowedUsersAreJoined_directInvitesFromOthersToo_forPairing_andOtherInvitesDeclined() {
        herald.start();
        String fromAlice = matrix.createRoom(ALICE, false);
        String groupFromMallory = matrix.createRoom(MALLORY, false, BOB);
        String dmFromMallory = matrix.createRoom(MALLORY, false);

        matrix.invite(fromAlice, ALICE, BOT, false);
        matrix.invite(groupFromMallory, MALLORY, BOT, false);
        matrix.invite(dmFromMallory, MALLORY, BOT, true);

        await().atMost(WAIT).until(() -> "join".equals(matrix.membership(fromAlice, BOT)) && "leave".equals(matrix.membership(groupFromMallory, BOT))
                && "join".equals(matrix.membership(dmFromMallory, BOT)));
        matrix.text(fromAlice, ALICE, "thanks for joining");
        await().atMost(WAIT).until(() -> matrix.botEvents(fromAlice).size() == 1);
        assertThat(matrix.botEvents(fromAlice).getFirst().body()).isEqualTo("echo: thanks for joining");
    }

    @Test
    void anEncryptedRoom_getsOnePlainNotice_andNoTurn() {
        String secret = matrix.createRoom(ALICE, true);
        herald.start();
        matrix.invite(secret, ALICE, BOT, true);
        await().atMost(WAIT).until(() -> matrix.botEvents(secret).size() == 1);

        matrix.text(secret, ALICE, "can you read this?");
        matrix.text(secret, ALICE, "and this?");
        String plain = matrix.createRoom(ALICE, false, BOT);
        matrix.text(plain, ALICE, "and here?");

        await().atMost(WAIT).until(() -> matrix.botEvents(plain).size() == 1);
        assertThat(matrix.botEvents(secret)).singleElement().satisfies(e -> {
            assertThat(e.content().path("msgtype").asText()).isEqualTo("m.notice");
            assertThat(e.body()).contains("end-to-end encrypted", "not supported");
        });
        assertThat(herald.turns()).extracting(TurnRecord::text).containsExactly("and here?");
    }

    @Test
    void aRateLimitedSend_isRetriedAfterRetryAfterMs_andArrivesOnce() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        matrix.rateLimitMillis = 200;
        matrix.rateLimitSends.set(1);

        matrix.text(dm, ALICE, "busy day");

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(dm).size() == 1);
        assertThat(matrix.botSendAttempts).hasValue(2);
        assertThat(matrix.botEvents(dm).getFirst().body()).isEqualTo("echo: busy day");
    }

    @Test
    void whileATurnRuns_theRoomShowsTyping() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("done thinking");

        matrix.text(dm, ALICE, "think hard");

        hold.awaitArrival(WAIT);
        await().atMost(WAIT).until(() -> matrix.typing.contains(dm));
        hold.release();
        await().atMost(WAIT).until(() -> matrix.botEvents(dm).size() == 1);
    }

    @Test
    void aHugeBodyAndABodyOfTheWrongType_areSkipped_andTheNextMessageIsAnswered() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();

        matrix.text(dm, ALICE, "x".repeat(MatrixEvents.MAX_BODY + 1));
        ObjectNode wrong = FakeMatrix.content("");
        wrong.putArray("body").add(1);
        matrix.say(dm, ALICE, wrong);
        matrix.text(dm, ALICE, "still there?");

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(dm).size() == 1);
        assertThat(matrix.botEvents(dm).getFirst().body()).isEqualTo("echo: still there?");
        assertThat(herald.agent.messages()).containsExactly("still there?");
    }

    @Test
    void eventsFromBeforeAFreshStart_areNotAnswered() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        matrix.text(dm, ALICE, "an old message from last week");
        herald.start();

        matrix.text(dm, ALICE, "a new one");

        await().atMost(WAIT).during(SETTLE).until(() -> matrix.botEvents(dm).size() == 1);
        assertThat(herald.agent.messages()).containsExactly("a new one");
    }

    @Test
    void aLongReply_isSplitIntoSeveralEvents_eachWithinTheLimit() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        herald.agent.reply(String.join("\n\n", java.util.Collections.nCopies(800, "A paragraph of about forty characters.")));

        matrix.text(dm, ALICE, "write a lot");

        await().atMost(WAIT).until(() -> matrix.botEvents(dm).size() >= 2
                && herald.turns().stream().allMatch(t -> t.state() == dev.herald.core.turn.TurnState.DELIVERED));
        List<FakeMatrix.Logged> parts = matrix.botEvents(dm);
        assertThat(parts).allSatisfy(p -> assertThat(MatrixHtml.eventBytes(p.body())).isLessThanOrEqualTo(MatrixAdapter.MAX_TEXT_BYTES));
        assertThat(parts.stream().mapToLong(p -> p.body().split("forty characters").length - 1).sum()).isEqualTo(800);
    }
}
