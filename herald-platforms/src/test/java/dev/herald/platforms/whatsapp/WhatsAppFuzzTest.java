package dev.herald.platforms.whatsapp;

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
 * and makes only well-formed events; the running route answers every signed body 200 (a skip is logged), every unsigned
 * one 401, and still answers the next good message, having stored turns only for allowed numbers.
 */
@Tag("fuzz")
class WhatsAppFuzzTest {
    static final String ALICE = WhatsAppWebhookTest.ALICE;
    static final List<String> CORPUS = List.of(
            FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLFUZ1", "hello *there*")),
            FakeWhatsApp.notification("447700900123", "Bob", FakeWhatsApp.image("447700900123", "wamid.HBgLFUZ2", "1037543291543636", "a photo")),
            FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.buttonReply(ALICE, "wamid.HBgLFUZ3", "/approve always", "Always")),
            FakeWhatsApp.status("wamid.HBgLFUZ4", ALICE, "failed", 131047),
            """
            {"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{"messaging_product":"whatsapp",
             "metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},
             "contacts":[{"profile":{"name":"Kerry"},"wa_id":"16315551181"}],
             "messages":[{"context":{"from":"15550783881","id":"wamid.HBgLCTX"},"from":"16315551181","id":"wamid.HBgLDOC","timestamp":"1603059201",
              "type":"document","document":{"caption":"the invoice","filename":"invoice.pdf","mime_type":"application/pdf","sha256":"x","id":"2222"}},
              {"from":"16315551181","id":"wamid.HBgLAUD","timestamp":"1603059202","type":"audio","audio":{"mime_type":"audio/ogg; codecs=opus","id":"3333","voice":true}},
              {"from":"16315551181","id":"wamid.HBgLLOC","timestamp":"1603059203","type":"location","location":{"latitude":52.52,"longitude":13.4,"name":"Berlin"}},
              {"from":"16315551181","id":"wamid.HBgLUNS","timestamp":"1603059204","type":"unsupported","errors":[{"code":131051,"title":"Message type unknown"}]},
              {"from":"16315551181","id":"wamid.HBgLREA","timestamp":"1603059205","type":"reaction","reaction":{"message_id":"wamid.X","emoji":"\\uD83D\\uDE00"}}]},
             "field":"messages"}]}]}""",
            """
            {"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"value":{"messaging_product":"whatsapp",
             "metadata":{"display_phone_number":"1","phone_number_id":"106540352242922"},
             "errors":[{"code":130429,"title":"Rate limit hit","message":"Rate limit hit","error_data":{"details":"too many"}}]},"field":"messages"}]}]}""");

    final FakeWhatsApp meta = new FakeWhatsApp();
    @RegisterExtension
    final GatewayFixture herald = meta.herald(ALICE);

    @Test
    void theParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        WhatsAppEvents events = new WhatsAppEvents(WhatsAppAdapter.PLATFORM, FakeWhatsApp.PHONE_NUMBER_ID);
        Fuzzer.of("whatsapp webhook", CORPUS, 10_000).run(input -> {
            var parsed = events.parse(input.getBytes(StandardCharsets.UTF_8), Instant.now());
            parsed.messages().forEach(in -> wellFormed(in.event()));
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_answersSignedGarbage200AndUnsignedGarbage401_andStillAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("whatsapp webhook wire", CORPUS, 300).run(body -> {
            assertThat(meta.post(body, "sha256=" + "0".repeat(64))).as("a wrong signature").isEqualTo(401);
            int signed = meta.post(body);
            assertThat(signed).as("a signed body is read, or skipped with a log line").isIn(200, 413);
        }, t -> false);

        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLLAST", "still there?")));
        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).stream().anyMatch(s -> "echo: still there?".equals(s.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
