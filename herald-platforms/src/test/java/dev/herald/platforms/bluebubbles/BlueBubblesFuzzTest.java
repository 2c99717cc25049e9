package dev.herald.platforms.bluebubbles;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Webhook bodies from a broken (or hostile but secret-knowing) sender: the parser never throws but for a body that is
 * not JSON and makes only well-formed events (never one of the Mac's own messages, never a tapback, in a group only when
 * the bot is named); the running route answers every call without the secret 401 and every one with it 200 or 413,
 * and still answers the next good message, having stored turns only for allowed addresses.
 */
@Tag("fuzz")
class BlueBubblesFuzzTest {
    static final String ALICE = BlueBubblesWebhookTest.ALICE;
    static final String GROUP = BlueBubblesWebhookTest.GROUP;

    final FakeBlueBubbles bb = new FakeBlueBubbles();
    final List<String> corpus = List.of(
            FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "FUZZ-0001", "hello *there*")),
            FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, "+447700900123", "FUZZ-0002", "herald, hi")),
            FakeBlueBubbles.newMessage(bb.withAttachment(FakeBlueBubbles.dm(ALICE, "FUZZ-0003", "\uFFFC"), "at_0_FUZZ", "p.jpg", "image/jpeg",
                    new byte[] {1, 2, 3})),
            FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "FUZZ-0004", "mine").put("isFromMe", true)),
            FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "FUZZ-0005", "Liked “x”").put("associatedMessageGuid", "p:0/FUZZ-0001")),
            FakeBlueBubbles.event("updated-message", FakeBlueBubbles.dm(ALICE, "FUZZ-0001", "hello")),
            """
            {"type":"new-message","data":{"guid":"p:0/FUZZ-0006","text":"Herald where is it?","isFromMe":false,"itemType":0,
             "handle":{"address":"Kerry@Example.com"},"chats":[{"guid":"SMS;+;chat1","style":0,"displayName":null,"participants":[]}],
             "attachments":[{"guid":"../../ping","mimeType":null,"transferName":7,"totalBytes":"big"}],"threadOriginatorGuid":"FUZZ-0001"}}""");
    @RegisterExtension
    final GatewayFixture herald = bb.herald(ALICE);

    @Test
    void theParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        BlueBubblesEvents events = new BlueBubblesEvents(BlueBubblesAdapter.PLATFORM, true, List.of("herald"));
        Fuzzer.of("bluebubbles webhook", corpus, 400).run(input -> {
            var parsed = events.parse(input.getBytes(StandardCharsets.UTF_8), Instant.now());
            parsed.messages().forEach(in -> wellFormed(in, events));
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_answersCallsWithoutTheSecret401AndTheOthersWithoutError_andStillAnswersTheNextGoodMessage() {
        bb.echo = false;
        herald.start();
        Fuzzer.wire("bluebubbles webhook wire", corpus, 100).run(body -> {
            assertThat(bb.post(body, "x" + FakeBlueBubbles.SECRET)).as("a wrong secret").isEqualTo(401);
            assertThat(bb.post(body)).as("read, or skipped with a log line").isIn(200, 413);
        }, t -> false);

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "FUZZ-LAST", "still there?")));
        await().atMost(WAIT).until(() -> bb.sentTo(FakeBlueBubbles.dmChat(ALICE)).stream().anyMatch(s -> "echo: still there?".equals(s.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(BlueBubblesEvents.Incoming in, BlueBubblesEvents events) {
        MessageEvent e = in.event();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a guid to dedupe by").matches(BlueBubblesApi.GUID.pattern());
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.source().chatId()).isEqualTo(in.chatGuid()).matches(BlueBubblesApi.GUID.pattern()).doesNotContain("..");
        assertThat(e.source().userId()).isNotBlank();
        assertThat(e.media()).allSatisfy(m -> assertThat(m.ref()).matches(BlueBubblesApi.GUID.pattern()).doesNotContain(".."));
    }
}
