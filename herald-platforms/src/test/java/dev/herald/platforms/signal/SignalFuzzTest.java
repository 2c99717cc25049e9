package dev.herald.platforms.signal;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE_UUID;
import static dev.herald.platforms.signal.FakeSignalCli.BOB_UUID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What signal-cli's event stream carries, from a broken or hostile daemon: the envelope reader never throws and makes
 * only well-formed events, and the running adapter survives a stream of malformed events and lines (never stopped by
 * one) and still answers the next good message, having stored turns only for allowed senders.
 */
@Tag("fuzz")
class SignalFuzzTest {
    static final List<String> CORPUS = List.of(
            """
            {"envelope":{"source":"+15550000002","sourceNumber":"+15550000002","sourceUuid":"a11ce000-0000-4000-8000-000000000002",
             "sourceName":"Alice","sourceDevice":1,"timestamp":1712000001000,"serverReceivedTimestamp":1712000001005,
             "serverDeliveredTimestamp":1712000001009,"dataMessage":{"timestamp":1712000001000,"message":"hi there",
             "expiresInSeconds":0,"viewOnce":false,"mentions":[],"attachments":[],"contacts":[]}},"account":"+15550000001"}""",
            """
            {"envelope":{"source":"a11ce000-0000-4000-8000-000000000002","sourceNumber":null,"sourceUuid":"a11ce000-0000-4000-8000-000000000002",
             "sourceName":"Alice","sourceDevice":2,"timestamp":1712000002000,"dataMessage":{"timestamp":1712000002000,
             "message":"\\uFFFC what is 2+2?","expiresInSeconds":0,"viewOnce":false,
             "mentions":[{"name":"+15550000001","number":"+15550000001","uuid":"0b0b0b0b-0000-4000-8000-000000000001","start":0,"length":1}],
             "groupInfo":{"groupId":"c2lnbmFsLWdyb3VwLWlkLWZvci10ZXN0cy0wMDAwMDE=","groupName":"Test group","revision":3,"type":"DELIVER"},
             "quote":{"id":1712000001000,"author":"+15550000001","authorNumber":"+15550000001","authorUuid":"0b0b0b0b-0000-4000-8000-000000000001",
             "text":"earlier","attachments":[]},
             "attachments":[{"contentType":"image/png","filename":"a.png","id":"Gzm6lhCUAeQy4k7Cnfd0.png","size":10,"width":1,"height":1,
             "caption":null,"uploadTimestamp":1712000001900}]}},"account":"+15550000001"}""",
            """
            {"envelope":{"source":"+15550000002","sourceNumber":"+15550000002","sourceUuid":"a11ce000-0000-4000-8000-000000000002",
             "sourceDevice":1,"timestamp":1712000003000,"receiptMessage":{"when":1712000003000,"isDelivery":true,"isRead":false,
             "isViewed":false,"timestamps":[1712000001000]}},"account":"+15550000001"}""",
            """
            {"envelope":{"source":"+15550000002","sourceNumber":"+15550000002","sourceUuid":"a11ce000-0000-4000-8000-000000000002",
             "sourceDevice":1,"timestamp":1712000004000,"typingMessage":{"action":"STARTED","timestamp":1712000004000}},"account":"+15550000001"}""",
            """
            {"envelope":{"source":"+15550000001","sourceNumber":"+15550000001","sourceUuid":"0b0b0b0b-0000-4000-8000-000000000001",
             "sourceDevice":2,"timestamp":1712000005000,"syncMessage":{"sentMessage":{"destination":"+15550000002",
             "destinationNumber":"+15550000002","destinationUuid":"a11ce000-0000-4000-8000-000000000002","timestamp":1712000005000,
             "message":"from my phone","expiresInSeconds":0,"viewOnce":false}}},"account":"+15550000001"}""",
            """
            {"jsonrpc":"2.0","method":"receive","params":{"envelope":{"source":"+15550000002","sourceNumber":"+15550000002",
             "sourceUuid":"a11ce000-0000-4000-8000-000000000002","sourceName":"Alice","sourceDevice":1,"timestamp":1631458508784,
             "dataMessage":{"timestamp":1631458508784,"message":"foobar","expiresInSeconds":0,"viewOnce":false,"mentions":[],
             "attachments":[],"contacts":[]}},"account":"+15550000001"}}""");

    final FakeSignalCli signal = new FakeSignalCli();
    @RegisterExtension
    final GatewayFixture herald = signal.herald(ALICE_UUID);

    @Test
    void envelopeReading_neverThrows_andEveryEventItMakesIsWellFormed() {
        SignalEnvelopes envelopes = new SignalEnvelopes(SignalAdapter.PLATFORM, FakeSignalCli.BOT, Set.of(ALICE), true, Clock.systemUTC());
        Fuzzer.of("signal envelope", CORPUS, 20_000).run(input -> {
            JsonNode received = LocalJsonServer.JSON.readTree(input);
            envelopes.normalise(received).ifPresent(SignalFuzzTest::wellFormed);
        }, t -> t instanceof JacksonException);
    }

    @Test
    void adapter_survivesMalformedEventsAndLines_andAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("signal wire", CORPUS, 300).run(signal::deliverRaw, t -> false);
        signal.writeRaw("data:{\"envelope\":\n\nid:\nevent:\n:\nretry:abc\ndata:\u0000\uFFFD\n\n");
        signal.writeRaw("event:receive\ndata:" + "x".repeat(SignalEvents.MAX_EVENT + 10) + "\n\n");
        signal.writeRaw("event:receive\ndata:[1,2,3]\n\n");
        signal.writeRaw("event:receive\ndata:{\"envelope\":{\"sourceUuid\":\"" + BOB_UUID + "\",\"timestamp\":-1,\"dataMessage\":{}}}\n\n");

        signal.dm(ALICE_UUID, ALICE, "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> signal.textsTo(ALICE_UUID).contains("echo: still there?"));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn(ALICE_UUID, ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotBlank();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.messageId()).matches("[^:]+:[1-9][0-9]*");
        assertThat(SignalEnvelopes.quoteOf(e.messageId())).as("a reply can quote it").isPresent();
        e.media().forEach(m -> assertThat(m.ref()).matches("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\\|[A-Za-z0-9+/=:-]{1,100}"));
    }
}
