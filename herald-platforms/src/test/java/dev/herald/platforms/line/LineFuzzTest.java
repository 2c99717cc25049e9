package dev.herald.platforms.line;

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
 * Webhook bodies from a broken (or hostile but signing) sender: the parser never throws but for a body that is not JSON
 * and makes only well-formed events; the running route answers every signed body 200 (a skip is logged), every wrongly
 * signed one 401, and still answers the next good message, having stored turns only for the allowed user.
 */
@Tag("fuzz")
class LineFuzzTest {
    static final String ALICE = LineWebhookTest.ALICE;
    static final List<String> CORPUS = corpus();

    final FakeLine line = new FakeLine();
    @RegisterExtension
    final GatewayFixture herald = line.herald(ALICE);

    private static List<String> corpus() {
        try (FakeLine f = new FakeLine()) {
            return List.of(
                    FakeLine.body(f.text(ALICE, "01HZX5A1000000000000000001", "hello there")),
                    FakeLine.body(f.groupText("C" + "4f".repeat(16), ALICE, "01HZX5A1000000000000000002", "@Herald and @All", "self", "all")),
                    FakeLine.body(f.media("U" + "0c".repeat(16), "01HZX5A1000000000000000003", "image", "468789577898262530", null),
                            f.media(ALICE, "01HZX5A1000000000000000004", "file", "468789577898262531", "a.pdf")),
                    FakeLine.body(f.postback(ALICE, "01HZX5A1000000000000000005", "/approve always"), f.follow(ALICE, "01HZX5A1000000000000000006")),
                    """
                    {"destination":"Ubbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","events":[
                     {"type":"message","message":{"type":"sticker","id":"1","stickerId":"52002734","packageId":"11537","stickerResourceType":"STATIC",
                      "keywords":["Anticipation","Sparkle"]},"webhookEventId":"01HZX5A1000000000000000007","deliveryContext":{"isRedelivery":true},
                      "timestamp":1462629479859,"source":{"type":"room","roomId":"Raaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","userId":"Ua1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"},
                      "replyToken":"nHuyWiB7yP5Zw52FIkcQobQuGDXCTA","mode":"active"},
                     {"type":"message","message":{"type":"location","id":"2","title":"my location","address":"Tokyo","latitude":35.65910807942215,
                      "longitude":139.70372892916203},"webhookEventId":"01HZX5A1000000000000000008","deliveryContext":{"isRedelivery":false},
                      "timestamp":1462629479859,"source":{"type":"user","userId":"Ua1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"},"replyToken":"x","mode":"standby"},
                     {"type":"message","message":{"type":"video","id":"325708","duration":60000,"contentProvider":{"type":"external",
                      "originalContentUrl":"https://example.com/original.mp4","previewImageUrl":"https://example.com/preview.jpg"}},
                      "webhookEventId":"01HZX5A1000000000000000009","deliveryContext":{"isRedelivery":false},"timestamp":1462629479859,
                      "source":{"type":"user","userId":"Ua1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"},"replyToken":"y","mode":"active"},
                     {"type":"unfollow","mode":"active","timestamp":1462629479859,"source":{"type":"user","userId":"Ua1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"},
                      "webhookEventId":"01HZX5A100000000000000000A","deliveryContext":{"isRedelivery":false}},
                     {"type":"join","mode":"active","timestamp":1462629479859,"source":{"type":"group","groupId":"C4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f"},
                      "webhookEventId":"01HZX5A100000000000000000B","deliveryContext":{"isRedelivery":false},"replyToken":"z"},
                     {"type":"leave","mode":"active","timestamp":1462629479859,"source":{"type":"group","groupId":"C4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f"},
                      "webhookEventId":"01HZX5A100000000000000000C","deliveryContext":{"isRedelivery":false}}]}""");
        }
    }

    @Test
    void theParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        LineEvents events = new LineEvents(LineAdapter.PLATFORM, true);
        Fuzzer.of("line webhook", CORPUS, 2_500).run(input -> {
            var parsed = events.parse(input.getBytes(StandardCharsets.UTF_8), Instant.now());
            parsed.messages().forEach(in -> wellFormed(in.event()));
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_answersSignedGarbage200AndWronglySignedGarbage401_andStillAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("line webhook wire", CORPUS, 100).run(body -> {
            assertThat(line.post(body, FakeLine.signature("another-secret", body))).as("a wrong signature").isEqualTo(401);
            assertThat(line.post(body)).as("a signed body is read, or skipped with a log line").isIn(200, 413);
        }, t -> false);

        line.post(FakeLine.body(line.text(ALICE, "01HZX5A1000000000000000LST", "still there?")));
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).stream().anyMatch(s -> "echo: still there?".equals(s.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a webhookEventId to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        e.media().forEach(m -> assertThat(m.ref()).as("a LINE message id, the content path's only variable part").matches("[0-9]{1,32}"));
    }
}
