package dev.herald.platforms.ntfy;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stream lines from a broken (or hostile) server or publisher: the reader throws only for a line that is not JSON and
 * makes only well-formed events; garbage on the running stream is skipped and the next good message is still answered.
 */
@Tag("fuzz")
class NtfyFuzzTest {
    static final String TOPIC = FakeNtfy.TOPIC;
    static final List<String> CORPUS = List.of(
            "{\"id\":\"hwQ2YpKdmg\",\"time\":1635528741,\"event\":\"open\",\"topic\":\"" + TOPIC + "\"}",
            "{\"id\":\"CAtBfy2Wrw\",\"time\":1635528757,\"event\":\"keepalive\",\"topic\":\"" + TOPIC + "\"}",
            "{\"id\":\"sPs71M8A2T\",\"time\":1643935928,\"expires\":1643979128,\"event\":\"message\",\"topic\":\"" + TOPIC
                    + "\",\"priority\":5,\"tags\":[\"warning\",\"skull\"],\"click\":\"https://homecamera.lan/xasds1h2xsSsa/\","
                    + "\"title\":\"Unauthorized access detected\",\"message\":\"Remote access to phils-laptop detected. Act right away.\"}",
            "{\"id\":\"wze9zgqK41\",\"time\":1638542110,\"event\":\"message\",\"topic\":\"" + TOPIC + "\",\"message\":\"You received a file: flower.jpg\","
                    + "\"attachment\":{\"name\":\"flower.jpg\",\"type\":\"image/jpeg\",\"size\":15398,\"expires\":1638552910,"
                    + "\"url\":\"https://ntfy.sh/file/wze9zgqK41.jpg\"}}",
            "{\"id\":\"371sevb0pD\",\"time\":1638542275,\"event\":\"poll_request\",\"topic\":\"" + TOPIC + "\",\"message\":\"New message\","
                    + "\"poll_id\":\"hwQ2YpKdmg\"}",
            "{\"id\":\"Robot00001\",\"time\":1,\"event\":\"message\",\"topic\":\"" + TOPIC + "\",\"message\":\"mine\",\"tags\":[\"robot\"]}");

    final FakeNtfy ntfy = new FakeNtfy();
    @RegisterExtension
    final GatewayFixture herald = ntfy.herald();

    @Test
    void theReader_neverThrowsButForNonJson_andEveryEventItMakesIsWellFormed() {
        NtfyEvents events = new NtfyEvents(NtfyAdapter.PLATFORM, TOPIC, "robot", id -> id.equals("Published1"));
        Fuzzer.of("ntfy stream line", CORPUS, 3_000).run(input -> {
            NtfyEvents.Line line = events.read(input, Instant.now());
            if (line.message() != null) {
                wellFormed(line.message());
                assertThat(line.own()).isFalse();
            }
        }, t -> t instanceof IOException);
    }

    @Test
    void garbageOnTheRunningStream_isSkipped_andTheNextGoodMessageIsAnswered() {
        herald.start();
        Fuzzer.wire("ntfy stream wire", CORPUS, 150).run(line -> ntfy.pushRaw(line.replace("\n", " ")), t -> false);
        ntfy.pushRaw("\u0000\u0001 not json");
        ntfy.pushRaw("[1,2,3]");

        ntfy.userPublishes(TOPIC, "still there?", null);
        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).stream().anyMatch(m -> m.text().equals("echo: still there?")));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().chatId()).isEqualTo(TOPIC));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").matches("[A-Za-z0-9]{1,64}");
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
