package dev.herald.platforms.qqbot;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Conversations through QQ: one-to-one and group round trips as passive replies, multi-part answers, the reply window, media both ways. */
class QqBotConversationTest {
    @TempDir
    Path workspace;

    static final FakeQqGateway qq = new FakeQqGateway();
    @RegisterExtension
    final GatewayFixture herald = FakeQqGateway.herald(qq, "alice", "bob");

    @org.junit.jupiter.api.BeforeEach
    void resetFake() {
        qq.reset();
    }

    @org.junit.jupiter.api.AfterAll
    static void stopFake() {
        qq.close();
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aOneToOneMessage_isAnsweredAsAPassiveReply_withItsMsgIdAndMsgSeq1() {
        herald.start();

        String realId = "ROBOT1.0_YVzTU7YSOT5lDwl..a9qHIE9dmbeOnIa8htmw65.plUjarnep2VtBmgwh4JWmBlBWJVB8Ei-356O9DOFQyISCg!!";
        qq.c2c(realId, "alice", "hello there");

        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
        FakeQqGateway.Post p = qq.postsTo("user:alice").getFirst();
        assertThat(p.content()).isEqualTo("echo: hello there");
        assertThat(p.msgType()).isZero();
        assertThat(p.msgId()).as("QQ's id as it is, '..' and '!' included").isEqualTo(realId);
        assertThat(p.msgSeq()).isEqualTo(1);
        assertThat(turnOf("hello there").source().chatId()).isEqualTo("user:alice");
    }

    @Test
    void aGroupAtMessage_isAnsweredInTheGroup_fromTheMembersOpenid_withoutTheMentionsSpace() {
        herald.start();

        qq.group("grp-1", "G1", "bob", "what time is it?");

        await().atMost(WAIT).until(() -> qq.postsTo("group:G1").size() == 1);
        FakeQqGateway.Post p = qq.postsTo("group:G1").getFirst();
        assertThat(p.content()).isEqualTo("echo: what time is it?");
        assertThat(p.msgId()).isEqualTo("grp-1");
        assertThat(p.msgSeq()).isEqualTo(1);
        TurnRecord t = turnOf("what time is it?");
        assertThat(t.source().userId()).isEqualTo("bob");
        assertThat(t.source().chatType()).isEqualTo(dev.herald.core.platform.ChatType.GROUP);
    }

    @Test
    void aGroupMemberNotAllowed_getsNoAnswer() {
        herald.start();

        qq.group("grp-2", "G1", "mallory", "let me in");
        qq.group("grp-3", "G1", "bob", "after mallory");

        await().atMost(WAIT).until(() -> qq.postsTo("group:G1").size() == 1);
        assertThat(qq.postsTo("group:G1").getFirst().content()).isEqualTo("echo: after mallory");
        assertThat(herald.turns()).noneMatch(t -> t.text().equals("let me in"));
    }

    @Test
    void aLongAnswer_goesInSeveralParts_numberedMsgSeq1ToN_allReplyingToTheOneMessage() {
        herald.start();
        String longText = ("word ".repeat(399) + "end.\n\n").repeat(3); // about 6,000 characters: three parts of at most 2,000
        herald.agent.reply(longText.strip());

        qq.c2c("c2c-long", "alice", "tell me everything");

        await().atMost(WAIT).until(() -> turnOf("tell me everything").state() == TurnState.DELIVERED);
        List<FakeQqGateway.Post> posts = qq.postsTo("user:alice");
        assertThat(posts).hasSizeGreaterThanOrEqualTo(3);
        assertThat(posts).extracting(FakeQqGateway.Post::msgSeq).containsExactly(java.util.stream.IntStream.rangeClosed(1, posts.size())
                .boxed().toArray(Integer[]::new));
        assertThat(posts).allSatisfy(p -> assertThat(p.msgId()).isEqualTo("c2c-long"));
        assertThat(posts).allSatisfy(p -> assertThat(p.content().length()).isLessThanOrEqualTo(QqBotAdapter.MAX_TEXT));
        assertThat(String.join(" ", posts.stream().map(FakeQqGateway.Post::content).toList()).replaceAll("\\s+", " "))
                .isEqualTo(longText.strip().replaceAll("\\s+", " "));
    }

    @Test
    void aGroupMessageOlderThanTheWindow_isNotAnswered_andTheTurnSaysWhy() {
        herald.start();

        qq.dispatch("GROUP_AT_MESSAGE_CREATE", FakeQqGateway.groupJson("grp-old", "G2", "bob", "too late", Duration.ofMinutes(6)));

        await().atMost(WAIT).until(() -> turnOf("too late").state() == TurnState.UNDELIVERABLE);
        assertThat(turnOf("too late").deliveryError()).contains("within 5 min");
        assertThat(qq.postsTo("group:G2")).isEmpty();
        assertThat(qq.refused).isEmpty();
    }

    @Test
    void plainText_dropsMarkdownMarks_andMarkdownWhenEnabledGoesAsMsgType2_andAChatWithoutAMessageGetsAnActiveMessage() {
        herald.start();
        qq.c2c("c2c-plain", "alice", "**bold** please");
        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
        assertThat(qq.postsTo("user:alice").getFirst().content()).as("plain text without markdown").isEqualTo("echo: bold please");

        QqBotAdapter md = new QqBotAdapter(qq.settings(FakeQqGateway.SECRET).withMarkdown(true), FakeQqGateway.timing(),
                herald.storage.platformState(), herald.clock);
        try {
            var r = md.send(dev.herald.core.platform.OutboundMessage.notice(dev.herald.core.platform.ChatTarget.of("user:carol"), "**hi**"));
            assertThat(r.success()).as(String.valueOf(r.error())).isTrue();
        } finally {
            md.close();
        }
        FakeQqGateway.Post p = qq.postsTo("user:carol").getFirst();
        assertThat(p.msgType()).isEqualTo(2);
        assertThat(p.body().path("markdown").path("content").asText()).isEqualTo("**hi**");
        assertThat(p.msgId()).as("no message of carol's to answer: an active message").isNull();
    }

    @Test
    void anAttachment_isKeptAsItsUrl_andFetchedOnlyFromQqsHostsOrTheApiHost() throws Exception {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};
        qq.media.put("pic.png", png);
        herald.start();
        var d = FakeQqGateway.c2cJson("c2c-pic", "alice", "what is this?", Duration.ZERO);
        d.putArray("attachments").addObject().put("url", qq.apiBase() + "/media/pic.png").put("content_type", "image/png")
                .put("filename", "pic.png").put("size", png.length);
        qq.dispatch("C2C_MESSAGE_CREATE", d);

        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
        MessageEvent.MediaRef ref = turnOf("what is this?").attachments().getFirst();
        QqBotAdapter adapter = (QqBotAdapter) herald.current;
        assertThat(adapter.fetch(ref, 1024).bytes()).isEqualTo(png);
        assertThatThrownBy(() -> adapter.fetch(new MessageEvent.MediaRef("image", "http://localhost:" + qq.apiBase().getPort()
                + "/media/pic.png", "image/png"), 1024)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> adapter.fetch(new MessageEvent.MediaRef("image", "https://169.254.169.254/latest/meta-data/", null), 1024))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aFileFromTheAgent_isUploadedThenSentAsRichMedia_afterTheText() throws Exception {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 9, 9};
        Path p = workspace.resolve("chart.png");
        Files.write(p, png);
        herald.start();
        herald.agent.replyWithFiles("Here is the chart.", new OutboundFile(p.toRealPath().toString(), "chart.png", "image/png", png.length,
                "Q3"));

        qq.group("grp-file", "G3", "bob", "draw it");

        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("draw it").state() == TurnState.DELIVERED);
        List<FakeQqGateway.Post> posts = qq.postsTo("group:G3");
        assertThat(posts).extracting(FakeQqGateway.Post::msgType).containsExactly(0, 7);
        assertThat(posts).extracting(FakeQqGateway.Post::msgSeq).containsExactly(1, 2);
        assertThat(qq.uploads).singleElement().satisfies(u -> {
            assertThat(u.fileType()).isEqualTo(1);
            assertThat(u.bytes()).isEqualTo(png);
            assertThat(posts.get(1).body().path("media").path("file_info").asText()).isEqualTo(u.fileInfo());
        });
        assertThat(posts.get(1).content()).isEqualTo("Q3");
    }

    @Test
    void theLedger_numbersRepliesPerMessage_keepsAPartsNumberForItsResend_andStopsAfterFiveReplies() {
        QqBotReplies ledger = new QqBotReplies(herald.storage.platformState());
        java.time.Instant at = java.time.Instant.parse("2026-01-01T00:00:00Z");
        ledger.received("group:G9", "m-1", at, "event-1");
        ledger.received("group:G9", "m-1", at.plusSeconds(5), "event-redelivered");

        assertThat(ledger.slot("group:G9", "event-1", "m-1", "k1").orElseThrow().seq()).isEqualTo(1);
        assertThat(ledger.slot("group:G9", "event-1", null, "k2").orElseThrow().seq()).isEqualTo(2);
        QqBotReplies.Slot again = ledger.slot("group:G9", "event-1", null, "k1").orElseThrow();
        assertThat(again.seq()).as("a resend of k1 keeps its number").isEqualTo(1);
        assertThat(again.resend()).isTrue();
        assertThat(again.receivedAt()).as("a redelivery does not move the window").isEqualTo(at);
        ledger.sent("group:G9", "m-1", "k2", "sent-77");
        assertThat(ledger.slot("group:G9", "event-1", null, "k2").orElseThrow().sentId()).isEqualTo("sent-77");
        assertThat(ledger.slot("group:G9", null, null, null).orElseThrow().msgId()).as("a notice answers the newest").isEqualTo("m-1");
        assertThat(new QqBotReplies(herald.storage.platformState()).slot("group:G9", "event-1", null, "k5").orElseThrow().seq())
                .as("numbers come from the store, not from memory").isEqualTo(4);
        assertThat(ledger.slot("group:G9", "event-1", null, "k6").orElseThrow().seq()).isEqualTo(5);
        assertThat(ledger.slot("group:G9", "event-1", null, "k7").orElseThrow().seq()).isGreaterThan(QqBotReplies.MAX_REPLIES);
        assertThat(ledger.slot("group:nobody", "event-1", null, "k1")).isEmpty();
        assertThat(QqBotApi.parseSeconds(FakeQqGateway.JSON.getNodeFactory().textNode("7200"))).isEqualTo(7200);
        assertThat(QqBotApi.parseSeconds(FakeQqGateway.JSON.getNodeFactory().textNode("soon"))).isEqualTo(60);
    }

    @Test
    void aSixthReplyToOneMessage_isNotSent_andSaysWhy() {
        herald.start();
        qq.c2c("c2c-many", "alice", "count");
        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1); // the echo is reply 1
        QqBotAdapter adapter = (QqBotAdapter) herald.current;
        dev.herald.core.platform.ChatTarget chat = dev.herald.core.platform.ChatTarget.of("user:alice");
        for (int i = 2; i <= QqBotReplies.MAX_REPLIES; i++) {
            assertThat(adapter.send(answer(chat, "part " + i)).success()).isTrue();
        }
        var sixth = adapter.send(answer(chat, "part 6"));

        assertThat(sixth.success()).isFalse();
        assertThat(sixth.retryable()).isFalse();
        assertThat(sixth.error()).contains("at most 5 replies to message c2c-many");
        assertThat(qq.postsTo("user:alice")).extracting(FakeQqGateway.Post::msgSeq).containsExactly(1, 2, 3, 4, 5);

        var notice = adapter.send(dev.herald.core.platform.OutboundMessage.notice(chat, "Herald is restarting"));
        assertThat(notice.success()).as("a notice goes as an active message instead").isTrue();
        assertThat(qq.postsTo("user:alice").getLast().msgId()).isNull();
    }

    private dev.herald.core.platform.OutboundMessage answer(dev.herald.core.platform.ChatTarget chat, String text) {
        String event = turnOf("count").eventId();
        return new dev.herald.core.platform.OutboundMessage(chat, text, dev.herald.core.platform.MessageKind.REPLY, null, event, 1, 1);
    }
}
