package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Events from a broken (or hostile but signing) sender: the decryption and the event reader throw only their own
 * refusals, and every event they make is well-formed; the running route answers every signed body 200, 400 or 401 (a
 * token that no longer matches), every wrongly signed one 401, and still answers the next good message.
 */
@Tag("fuzz")
class FeishuFuzzTest {
    static final String ALICE = FeishuCallbackTest.ALICE;
    static final String DM = FeishuCallbackTest.DM;
    static final String GROUP = FeishuCallbackTest.GROUP;
    static final List<String> CORPUS = List.of(
            FakeFeishu.text("ev-z-1", "om_z00000000000000000000000000001", DM, "p2p", ALICE, "hello **there**"),
            FakeFeishu.text("ev-z-2", "om_z00000000000000000000000000002", GROUP, "group", ALICE, "@_user_1 hi @_user_2", FakeFeishu.BOT,
                    "ou_other"),
            FakeFeishu.inThread(FakeFeishu.text("ev-z-3", "om_z00000000000000000000000000003", GROUP, "group", ALICE, "@_user_1 t",
                    FakeFeishu.BOT), "om_z00000000000000000000000000000"),
            FakeFeishu.message("ev-z-4", "om_z00000000000000000000000000004", DM, "p2p", ALICE, "image", "{\"image_key\":\"img_v2_1\"}"),
            FakeFeishu.message("ev-z-5", "om_z00000000000000000000000000005", DM, "p2p", ALICE, "post",
                    "{\"title\":\"t\",\"content\":[[{\"tag\":\"text\",\"text\":\"x\"},{\"tag\":\"img\",\"image_key\":\"img_v2_2\"}]]}"),
            FakeFeishu.message("ev-z-6", "om_z00000000000000000000000000006", DM, "p2p", ALICE, "audio", "{\"file_key\":\"file_v2_3\",\"duration\":2000}"),
            FakeFeishu.cardPress("ev-z-7", ALICE, DM, "om_z00000000000000000000000000007",
                    LocalJsonServer.JSON.createObjectNode().put("herald", "approve").put("chat_type", "p2p")),
            "{\"challenge\":\"c\",\"token\":\"" + FakeFeishu.TOKEN + "\",\"type\":\"url_verification\"}");

    final FakeFeishu feishu = new FakeFeishu();
    @RegisterExtension
    final GatewayFixture herald = feishu.herald(ALICE);

    /**
     * The long connection's frame decoder on mutated frames (bytes as ISO-8859-1 characters): it throws only its own
     * refusal, and what it decodes encodes to a frame that decodes to the same.
     */
    @Test
    void theFrameDecoder_throwsOnlyMalformed_andWhatItDecodesSurvivesARoundTrip() {
        java.nio.charset.Charset latin1 = java.nio.charset.StandardCharsets.ISO_8859_1;
        List<String> frames = List.of(
                new String(FakeFeishuLongConnection.data("msg_1", 1, 0, CORPUS.getFirst().getBytes(java.nio.charset.StandardCharsets.UTF_8)), latin1),
                new String(FakeFeishuLongConnection.data("msg_2", 3, 2, "{\"x\":1}".getBytes(latin1)), latin1),
                new String(FeishuFrame.control(33554678, "ping", new byte[0]).encode(), latin1),
                new String(FeishuFrame.control(33554678, "pong", "{\"PingInterval\":120}".getBytes(latin1)).encode(), latin1));
        Fuzzer.of("feishu pbbp2 frame", frames, 400).run(input -> {
            FeishuFrame f = FeishuFrame.decode(input.getBytes(latin1));
            FeishuFrame again = FeishuFrame.decode(f.encode());
            assertThat(again.headers()).isEqualTo(f.headers());
            assertThat(again.payload()).isEqualTo(f.payload());
            assertThat(again.method()).isIn(FeishuFrame.CONTROL, FeishuFrame.DATA);
        }, t -> t instanceof FeishuFrame.Malformed);
    }

    @Test
    void theDecryptionAndTheEventReader_neverThrowButTheirRefusals_andEveryEventIsWellFormed() {
        FeishuCrypto crypto = new FeishuCrypto(FakeFeishu.ENCRYPT_KEY);
        FeishuEvents events = new FeishuEvents(FeishuAdapter.PLATFORM, true, () -> FakeFeishu.BOT);
        Fuzzer.of("feishu event json", CORPUS, 150).run(input -> {
            var read = events.read(LocalJsonServer.JSON.readTree(input), Instant.now());
            if (read.event() != null) {
                wellFormed(read.event());
            }
        }, t -> t instanceof IOException);
        List<String> encrypted = CORPUS.stream().map(x -> FakeFeishu.encrypt(x, FakeFeishu.ENCRYPT_KEY)).toList();
        Fuzzer.of("feishu event ciphertext", encrypted, 40).run(input -> {
            byte[] plain = crypto.decrypt(input);
            var tree = LocalJsonServer.JSON.readTree(plain);
            if (tree != null) {
                var read = events.read(tree, Instant.now());
                if (read.event() != null) {
                    wellFormed(read.event());
                }
            }
        }, t -> t instanceof FeishuCrypto.Refused || t instanceof IOException);
        Fuzzer.of("feishu event plaintext through the encryption", CORPUS, 80).run(input -> {
            var tree = LocalJsonServer.JSON.readTree(crypto.decrypt(FakeFeishu.encrypt(input, FakeFeishu.ENCRYPT_KEY)));
            if (tree != null) {
                var read = events.read(tree, Instant.now());
                if (read.event() != null) {
                    wellFormed(read.event());
                }
            }
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_answersSignedGarbage200Or400Or401_andWronglySignedGarbage401_andStillAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("feishu event wire", CORPUS, 15).run(body -> {
            assertThat(feishu.post(body, FakeFeishu.ENCRYPT_KEY, "not the key", Instant.now()).statusCode()).as("a wrong signature").isEqualTo(401);
            assertThat(feishu.post(body)).as("signed: read, skipped, refused as not JSON, or a token that no longer matches").isIn(200, 400, 401);
        }, t -> false);

        feishu.post(FakeFeishu.text("ev-z-9", "om_z00000000000000000000000000009", DM, "p2p", ALICE, "still there?"));
        await().atMost(WAIT).until(() -> feishu.sentTo(DM).stream().anyMatch(s -> "echo: still there?".equals(s.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
