package dev.herald.platforms.waha;

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
 * and makes only well-formed events (never one of the number's own messages, never a status update, in a group only
 * with a mention); the running route answers every wrongly signed body 401 and every signed one 200, 403 or 413, and
 * still answers the next good message, having stored turns only for allowed numbers.
 */
@Tag("fuzz")
class WahaFuzzTest {
    static final String ALICE = WahaWebhookTest.ALICE;
    static final String GROUP = WahaWebhookTest.GROUP;

    final FakeWaha waha = new FakeWaha();
    final List<String> corpus = List.of(
            FakeWaha.message(FakeWaha.dm(ALICE, "3EB0FUZ1", "hello *there*")),
            FakeWaha.message(FakeWaha.group(GROUP, "447700900123", "3EB0FUZ2", "@" + FakeWaha.ME + " hi", FakeWaha.ME_ID)),
            FakeWaha.message(waha.withFile(FakeWaha.dm(ALICE, "3EB0FUZ3", "a photo"), "p.jpg", "image/jpeg", new byte[] {1, 2, 3})),
            FakeWaha.event("message.any", FakeWaha.dm(ALICE, "3EB0FUZ4", "mine").put("fromMe", true), Instant.now()),
            FakeWaha.message(FakeWaha.dm(ALICE, "3EB0FUZ5", "story").put("from", "status@broadcast")),
            FakeWaha.event("session.status", dev.herald.platforms.LocalJsonServer.JSON.createObjectNode().put("status", "SCAN_QR_CODE"), Instant.now()),
            """
            {"id":"evt_01","timestamp":1733400000000,"event":"message","session":"default","me":{"id":"4930901820@c.us","lid":"1234567@lid"},
             "payload":{"id":"false_120363@g.us_3EB0X_98765@lid","timestamp":1733400000,"from":"120363@g.us","fromMe":false,"participant":"98765@lid",
             "body":"@1234567 where is it?","hasMedia":true,"media":{"url":null,"mimetype":"audio/ogg","error":{"message":"x"}},
             "location":{"latitude":"52.5","longitude":"13.4","description":"Berlin"},"replyTo":{"id":"3EB0Y","participant":"4930901820@s.whatsapp.net"},
             "_data":{"notifyName":"Kerry","mentionedJidList":["1234567@lid"]}},"engine":"NOWEB"}""");
    @RegisterExtension
    final GatewayFixture herald = waha.herald(ALICE);

    @Test
    void theParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        WahaEvents events = new WahaEvents(WahaAdapter.PLATFORM, FakeWaha.SESSION, true);
        Fuzzer.of("waha webhook", corpus, 5_000).run(input -> {
            var parsed = events.parse(input.getBytes(StandardCharsets.UTF_8), Instant.now(), WahaEvents.Me.UNKNOWN);
            parsed.messages().forEach(in -> wellFormed(in.event()));
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_answersWronglySignedBodies401AndSignedOnesWithoutError_andStillAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("waha webhook wire", corpus, 200).run(body -> {
            assertThat(waha.post(body, "0".repeat(128), "sha512")).as("a wrong signature").isEqualTo(401);
            assertThat(waha.post(body)).as("a signed body is read, skipped with a log line, or refused as stale").isIn(200, 403, 413);
        }, t -> false);

        waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0LAST", "still there?")));
        await().atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").stream().anyMatch(s -> "echo: still there?".equals(s.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.source().chatId()).as("a WhatsApp chat, never a broadcast").matches("[A-Za-z0-9._:-]+@(c\\.us|lid|g\\.us)");
        assertThat(e.source().userId()).isNotBlank();
    }
}
