package dev.herald.platforms.googlechat;

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
 * Events from a broken (or hostile but token-holding) sender: the parser never throws but for a body that is not JSON
 * and makes only well-formed events; the running route answers every body without a valid token 401, every one with a
 * token 200 or 400, and still answers the next good message, with turns only for the allowed user.
 */
@Tag("fuzz")
class GoogleChatFuzzTest {
    static final String ALICE = GoogleChatEventsTest.ALICE;

    final FakeGoogleChat chat = new FakeGoogleChat();
    @RegisterExtension
    final GatewayFixture herald = chat.herald(ALICE);

    static List<String> corpus() {
        var image = FakeGoogleChat.dm("AAAAdm1", ALICE, "f2.x", "look");
        ((com.fasterxml.jackson.databind.node.ObjectNode) image.path("message")).putArray("attachment").addObject().put("contentType", "image/png")
                .put("contentName", "a.png").putObject("attachmentDataRef").put("resourceName", "Clxz/abc==");
        return List.of(
                FakeGoogleChat.dm("AAAAdm1", ALICE, "f1.x", "hello *there*").toString(),
                image.toString(),
                FakeGoogleChat.message("AAAAsp1", "SPACE", "thr1", ALICE, "f3.x", "in a thread", true).toString(),
                FakeGoogleChat.cardClicked("AAAAsp1", "SPACE", "thr1", ALICE, "f4.x", GoogleChatEvents.APPROVAL_FUNCTION, "/approve always").toString(),
                FakeGoogleChat.dm("AAAAdm1", ALICE, "f5.x", null).put("type", "ADDED_TO_SPACE").toString(),
                """
                {"type":"MESSAGE","space":{"name":"spaces/AAAAsp1","spaceType":"GROUP_CHAT"},"message":{"name":"spaces/AAAAsp1/messages/f6.x",
                 "text":"/help","annotations":[{"type":"SLASH_COMMAND","slashCommand":{"commandId":"1","commandName":"/help","bot":{"name":"users/1"}}}],
                 "slashCommand":{"commandId":"1"},"sender":{"name":"users/109876543210987654321","type":"HUMAN"}}}""");
    }

    @Test
    void theParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        GoogleChatEvents events = new GoogleChatEvents(GoogleChatAdapter.PLATFORM, true, "");
        Fuzzer.of("google chat event", corpus(), 5_000).run(input -> {
            var parsed = events.parse(input.getBytes(StandardCharsets.UTF_8), Instant.now());
            if (parsed.message() != null) {
                wellFormed(parsed.message().event());
                parsed.message().event().media().forEach(m -> assertThat(GoogleChatEvents.resourceName(m.ref())).isTrue());
            } else {
                assertThat(parsed.skipped()).isNotBlank();
            }
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_refusesGarbageWithoutAToken_readsItWithOne_andStillAnswersTheNextGoodMessage() {
        herald.start();
        String token = "Bearer " + FakeGoogleChat.sign(chat.claims().build(), chat.chatKey);
        Fuzzer.wire("google chat event wire", corpus(), 200).run(body -> {
            assertThat(chat.post(body, "Bearer not.a.token").statusCode()).as("an invalid token").isEqualTo(401);
            assertThat(chat.post(body, token).statusCode()).as("a body with a valid token is read or skipped").isIn(200, 400, 413);
        }, t -> false);

        chat.post(FakeGoogleChat.dm("AAAAdm1", ALICE, "last.x", "still there?").toString());
        await().atMost(WAIT).until(() -> chat.created.stream().anyMatch(c -> "echo: still there?".equals(c.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
