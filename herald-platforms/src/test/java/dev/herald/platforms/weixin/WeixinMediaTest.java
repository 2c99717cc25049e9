package dev.herald.platforms.weixin;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Media both ways through a local fake of the iLink API and its encrypted CDN: what a user sends (image, voice with
 * WeChat's transcription, file, video) is downloaded, decrypted and reaches the turn as attachments; media over the cap
 * or that cannot be decrypted is refused with a line in the text, which still gets through; files the agent sends are
 * encrypted, uploaded and sent as image and file items that decrypt to the same bytes.
 */
class WeixinMediaTest {
    private static final String TOKEN = "ilink-secret-token";
    private static final String USER = "wxid_alice@im.wechat";
    /** Let in by the gateway (as a paired user would be), not by the adapter's allowed_users. */
    private static final String PAIRED = "wxid_paired@im.wechat";
    private static final long MAX = 64 * 1024;
    static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 2, 3};
    static final byte[] PDF = "%PDF-1.4 the quarterly report".getBytes(StandardCharsets.UTF_8);
    static final byte[] SILK = "\u0002#!SILK_V3 voice frames".getBytes(StandardCharsets.ISO_8859_1);
    static final byte[] MP4 = {0, 0, 0, 24, 'f', 't', 'y', 'p', 'i', 's', 'o', 'm', 0, 0, 2, 0};

    @TempDir
    Path dir;
    @TempDir
    Path workspace;

    private final FakeILink fake = new FakeILink(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new WeixinAdapter(
            fake.settings(TOKEN).withMedia(fake.cdnBase(), MAX).withAllowedUsers(List.of(USER)),
            new WeixinSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(50),
                    Duration.ofMillis(300)), dir.resolve("weixin/state.json"), clock)).allow(USER, PAIRED).closing(fake);

    private TurnRecord turnAnswered(int sent) {
        await().atMost(WAIT).until(() -> fake.sent().size() >= sent);
        return h.turns().getLast();
    }

    @Test
    void eachMediaType_isDecrypted_andReachesTheTurnAsAnAttachment() throws Exception {
        h.start();
        ObjectNode file = FakeILink.mediaItem(4, fake.store(PDF));
        ((ObjectNode) file.get("file_item")).put("file_name", "report.pdf").put("len", Integer.toString(PDF.length));
        ObjectNode voice = FakeILink.mediaItem(3, fake.store(SILK));
        ((ObjectNode) voice.get("voice_item")).put("text", "please read the report");
        fake.userSends(USER, null, "ctx-1", FakeILink.textItem("look"), FakeILink.mediaItem(2, fake.store(JPEG)), voice, file,
                FakeILink.mediaItem(5, fake.store(MP4)));

        TurnRecord turn = turnAnswered(1);
        assertThat(turn.attachments()).extracting(MessageEvent.MediaRef::kind).containsExactly("image", "voice", "file", "video");
        assertThat(turn.attachments()).extracting(MessageEvent.MediaRef::mimeType)
                .containsExactly("image/jpeg", "audio/silk", "application/pdf", "video/mp4");
        assertThat(turn.attachments().get(2).name()).isEqualTo("report.pdf");
        assertThat(turn.attachments().get(2).size()).isEqualTo(PDF.length);
        assertThat(h.agent.messages().getFirst()).startsWith("look").contains("please read the report");

        WeixinAdapter adapter = (WeixinAdapter) h.current;
        List<byte[]> expected = List.of(JPEG, SILK, PDF, MP4);
        for (int i = 0; i < 4; i++) {
            MessageEvent.MediaRef ref = turn.attachments().get(i);
            assertThat(ref.ref()).startsWith("weixin-media:").doesNotContain("dl-");
            assertThat(adapter.fetcher().fetch(ref, MAX).bytes()).isEqualTo(expected.get(i));
        }
        assertThatThrownBy(() -> adapter.fetcher().fetch(turn.attachments().get(2), 8)).isInstanceOf(IOException.class)
                .hasMessageContaining("over the 8-byte limit");
        assertThatThrownBy(() -> adapter.fetcher().fetch(new MessageEvent.MediaRef("image", "weixin-media:999:0123456789abcdef", null), MAX))
                .isInstanceOf(IOException.class).hasMessageContaining("no longer known");
    }

    @Test
    void undecryptableAndOversizeMedia_areRefusedClearly_andTheTextStillGetsThrough() throws Exception {
        h.start();
        String[] wrongKey = withKeyThatFailsPadding(fake.store(JPEG));
        fake.storeRaw("dl-torn", Arrays.copyOf(JPEG, 13)); // not a whole AES block
        ObjectNode torn = FakeILink.mediaItem(4, new String[] {"dl-torn", wrongKey[1]});
        ((ObjectNode) torn.get("file_item")).put("file_name", "torn.bin");
        ObjectNode big = FakeILink.mediaItem(4, fake.store(PDF));
        ((ObjectNode) big.get("file_item")).put("file_name", "huge.zip").put("len", Long.toString(MAX * 10));
        fake.userSends(USER, null, "ctx-1", FakeILink.textItem("look at these"), FakeILink.mediaItem(2, wrongKey), torn, big);

        TurnRecord turn = turnAnswered(1);
        assertThat(turn.attachments()).isEmpty();
        assertThat(h.agent.messages().getFirst()).isEqualTo("""
                look at these
                (The image sent with this message was not received: it could not be decrypted with its key (bad padding).)
                (The file torn.bin sent with this message was not received: it could not be decrypted (13 bytes is not a whole number of AES blocks).)
                (The file huge.zip sent with this message was not received: it is 640 KB, over the 65536-byte limit (platforms.weixin.max_file_bytes).)""");
        assertThat(fake.cdnDownloads).as("the oversize file is refused by its declared size, before any download").hasSize(2);

        byte[] large = Arrays.copyOf(JPEG, (int) MAX + 1); // no declared size: refused by what the CDN sends
        fake.userSends(USER, null, "ctx-2", FakeILink.mediaItem(2, new String[] {"dl-gone", wrongKey[1]}),
                FakeILink.mediaItem(5, fake.store(large)));
        turnAnswered(2);
        assertThat(h.agent.messages().get(1)).isEqualTo("""
                (The image sent with this message was not received: the file server answered HTTP 404.)
                (The video sent with this message was not received: it is over the 65536-byte limit (platforms.weixin.max_file_bytes).)""");
    }

    @Test
    void aSenderNotOnTheAllowlist_getsAttachmentsFetchedOnlyWhenTheTurnAsks() throws Exception {
        h.start();
        fake.userSends(PAIRED, null, "ctx-p", FakeILink.mediaItem(2, fake.store(JPEG)));

        TurnRecord turn = turnAnswered(1);
        assertThat(fake.cdnDownloads).as("nothing downloaded for a sender the gateway might refuse").isEmpty();
        assertThat(((WeixinAdapter) h.current).fetcher().fetch(turn.attachments().getFirst(), MAX).bytes()).isEqualTo(JPEG);
        assertThat(fake.cdnDownloads).hasSize(1);
    }

    @Test
    void agentFiles_areEncrypted_uploaded_andSentAsFileAndImageItems_afterTheirCaptions() throws Exception {
        h.start();
        h.agent.replyWithFiles("Here it is.", file("report.pdf", PDF, "application/pdf", "the report"), file("chart.png", JPEG, "image/png", null));

        fake.userSays(USER, "send the report", "ctx-9");
        await().atMost(WAIT).until(() -> h.turns().stream().anyMatch(t -> t.state() == TurnState.DELIVERED));

        List<JsonNode> sent = fake.sent();
        assertThat(sent).extracting(m -> m.path("item_list").get(0).path("type").asInt()).containsExactly(1, 1, 4, 2);
        assertThat(sent).allSatisfy(m -> assertThat(m.path("context_token").asText()).isEqualTo("ctx-9"))
                .allSatisfy(m -> assertThat(m.path("to_user_id").asText()).isEqualTo(USER));
        assertThat(sent.get(1).path("item_list").get(0).path("text_item").path("text").asText()).isEqualTo("the report");

        JsonNode pdf = sent.get(2).path("item_list").get(0);
        assertThat(pdf.path("file_item").path("file_name").asText()).isEqualTo("report.pdf");
        assertThat(pdf.path("file_item").path("len").asText()).isEqualTo(Integer.toString(PDF.length));
        assertThat(fake.received(pdf)).isEqualTo(PDF);
        JsonNode asked = fake.uploadRequest(pdf);
        assertThat(asked.path("media_type").asInt()).isEqualTo(3);
        assertThat(asked.path("rawsize").asLong()).isEqualTo(PDF.length);
        assertThat(asked.path("rawfilemd5").asText()).isEqualTo(WeixinMedia.md5(PDF));
        assertThat(asked.path("to_user_id").asText()).isEqualTo(USER);

        JsonNode png = sent.get(3).path("item_list").get(0);
        assertThat(fake.received(png)).isEqualTo(JPEG);
        assertThat(fake.uploadRequest(png).path("media_type").asInt()).isEqualTo(1);
        assertThat(h.current.capabilities().files()).isTrue();
        assertThat(h.current.capabilities().maxFileBytes()).isEqualTo(MAX);
    }

    /** {@code stored} ({param, key}) with another key, one under which the ciphertext's padding does not check out. */
    private static String[] withKeyThatFailsPadding(String[] stored) {
        SecureRandom random = new SecureRandom();
        while (true) {
            byte[] key = new byte[16];
            random.nextBytes(key);
            try {
                WeixinCdn.decrypt(FakeILink.crypt(javax.crypto.Cipher.ENCRYPT_MODE, JPEG, HexFormat.of().parseHex(stored[1])), key);
            } catch (IOException badPadding) {
                return new String[] {stored[0], HexFormat.of().formatHex(key)};
            }
        }
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
