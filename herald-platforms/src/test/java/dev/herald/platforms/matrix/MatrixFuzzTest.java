package dev.herald.platforms.matrix;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.matrix.FakeMatrix.ALICE;
import static dev.herald.platforms.matrix.FakeMatrix.BOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /sync} answers from a hostile or broken homeserver (unknown fields, huge bodies, wrong types): reading one never
 * throws and yields only usable ids and well-formed events, and the running adapter survives a stream of malformed
 * timeline events and still answers the next good message, with turns for allowed users only.
 */
@Tag("fuzz")
class MatrixFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> CORPUS = List.of(
            """
            {"next_batch":"s72595_4483_1934","rooms":{"join":{"!cURbafjkfsMDVwdRDQ:matrix.org":{"summary":{"m.joined_member_count":2,
             "m.invited_member_count":0,"m.heroes":["@alice:example.com"]},"state":{"events":[{"type":"m.room.member","state_key":
             "@alice:example.com","sender":"@alice:example.com","content":{"membership":"join","displayname":"Alice"},"event_id":"$1"}]},
             "timeline":{"limited":true,"prev_batch":"t34-23535_0_0","events":[{"type":"m.room.message","event_id":
             "$143273582443PhrSn:example.org","sender":"@alice:example.com","origin_server_ts":1432735824653,"content":{"msgtype":"m.text",
             "body":"Herald: hello **there**","format":"org.matrix.custom.html","formatted_body":"<a href=\\"https://matrix.to/#/@herald:example.org\\">Herald</a>: hello",
             "m.mentions":{"user_ids":["@herald:example.org"]}},"unsigned":{"age":1234,"unknown_field":[1,2,{"x":null}]}}]},
             "ephemeral":{"events":[]},"account_data":{"events":[]},"unread_notifications":{"highlight_count":1}}},
             "invite":{"!696r7674:example.com":{"invite_state":{"events":[{"type":"m.room.name","state_key":"","sender":"@alice:example.com",
             "content":{"name":"My Room Name"}},{"type":"m.room.member","state_key":"@herald:example.org","sender":"@alice:example.com",
             "content":{"membership":"invite","is_direct":true}},{"type":"m.room.encryption","state_key":"","content":{"algorithm":"m.megolm.v1.aes-sha2"}}]}}},
             "leave":{}},"presence":{"events":[]},"account_data":{"events":[]},"device_lists":{"changed":["@alice:example.com"]}}""",
            """
            {"next_batch":"s9","rooms":{"join":{"!room2:example.org":{"timeline":{"events":[{"type":"m.room.message","event_id":"$thr-1",
             "sender":"@bob:example.org","content":{"msgtype":"m.text","body":"> <@alice:example.org> earlier\\n\\n@herald:example.org in thread",
             "m.relates_to":{"rel_type":"m.thread","event_id":"$root","is_falling_back":true,"m.in_reply_to":{"event_id":"$prev"}}}},
             {"type":"m.room.message","event_id":"$img","sender":"@bob:example.org","content":{"msgtype":"m.image","body":"cat.png",
             "url":"mxc://example.org/abcDEF123","info":{"mimetype":"image/png","size":12345,"w":10,"h":10}}},
             {"type":"m.room.encrypted","event_id":"$enc","sender":"@bob:example.org","content":{"algorithm":"m.megolm.v1.aes-sha2",
             "ciphertext":"AwgA","session_id":"s"}},{"type":"m.room.message","event_id":"$edit","sender":"@bob:example.org",
             "content":{"msgtype":"m.text","body":"* fixed","m.new_content":{"msgtype":"m.text","body":"fixed"},
             "m.relates_to":{"rel_type":"m.replace","event_id":"$img"}}},{"type":"m.room.message","event_id":"$n","sender":"@bot:x.org",
             "content":{"msgtype":"m.notice","body":"beep"}},{"type":"m.room.member","state_key":"@carol:example.org","sender":"@carol:example.org",
             "content":{"membership":"leave"}}]}}}}}""",
            """
            {"next_batch":"s10","rooms":{"join":{"!room3:example.org":{"timeline":{"events":[{"type":"m.room.message","event_id":"$f",
             "sender":"@alice:example.org","content":{"msgtype":"m.file","body":"the report for Q3","filename":"q3.pdf",
             "url":"mxc://example.org/file_1","info":{"mimetype":"application/pdf","size":99}}},{"type":"m.room.message","event_id":"$e",
             "sender":"@alice:example.org","content":{"msgtype":"m.emote","body":"waves at Herald"}}]}}}}}""");

    final FakeMatrix matrix = new FakeMatrix();
    @RegisterExtension
    final GatewayFixture herald = MatrixFixtures.herald(matrix);

    @Test
    void readingASyncAnswer_neverThrows_andEveryEventItMakesIsWellFormed() {
        MatrixEvents events = new MatrixEvents("@herald:example.org", true, Clock.systemUTC());
        Fuzzer.of("matrix sync", CORPUS, 5_000).run(input -> {
            JsonNode body = JSON.readTree(input);
            if (body == null) {
                return;
            }
            MatrixEvents.Sync sync = MatrixEvents.parse(body, "@herald:example.org");
            for (MatrixEvents.Item item : sync.items()) {
                assertThat(MatrixIds.room(item.room())).as("a usable room id").isNotNull();
                if (item instanceof MatrixEvents.RoomEvent e && e.type().equals("m.room.message")) {
                    events.message(e, false).ifPresent(MatrixFuzzTest::wellFormed);
                    events.message(e, true).ifPresent(MatrixFuzzTest::wellFormed);
                }
            }
        }, t -> t instanceof JacksonException);
    }

    @Test
    void adapter_survivesMalformedTimelineEvents_andAnswersTheNextGoodMessage() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        List<String> events = CORPUS.stream().flatMap(c -> {
            try {
                List<String> out = new java.util.ArrayList<>();
                JSON.readTree(c).path("rooms").path("join").forEach(r -> r.path("timeline").path("events").forEach(e -> out.add(e.toString())));
                return out.stream();
            } catch (JacksonException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
        Fuzzer.wire("matrix wire", events, 300).run(input -> {
            JsonNode ev = JSON.readTree(input);
            if (ev != null) {
                matrix.raw(dm, ev);
            }
        }, t -> t instanceof JacksonException);
        matrix.text(dm, ALICE, "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> matrix.botEvents(dm).stream().anyMatch(e -> e.body().equals("echo: still there?")));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn(ALICE, FakeMatrix.BOB));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotBlank();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.text().length()).isLessThanOrEqualTo(MatrixEvents.MAX_BODY);
        assertThat(e.messageId()).startsWith("$");
    }
}
