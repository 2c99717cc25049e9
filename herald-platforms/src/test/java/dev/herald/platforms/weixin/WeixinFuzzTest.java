package dev.herald.platforms.weixin;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * iLink getupdates messages from a hostile or broken server: reading a message never throws and yields only
 * usable ids, and the running adapter survives a stream of malformed messages, keeps its state file readable,
 * and still answers the next good message.
 */
@Tag("fuzz")
class WeixinFuzzTest {
    private static final String TOKEN = "ilink-secret-token";
    private static final String USER = "wxid_alice@im.wechat";
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> CORPUS = List.of(
            """
            {"message_id":7,"from_user_id":"wxid_alice@im.wechat","to_user_id":"bot@im.bot","create_time_ms":1700000000000,
             "message_type":1,"message_state":2,"item_list":[{"type":1,"text_item":{"text":"hello"}}],"context_token":"ctx-1"}""",
            """
            {"seq":9,"from_user_id":"wxid_bob@im.wechat","message_type":1,"item_list":[{"type":2,"image_item":{"url":"x"}},
             {"type":1,"text_item":{"text":"/status"}},{"type":1,"text_item":{"text":"second line"}}],"context_token":"ctx-2"}""",
            """
            {"message_id":8,"from_user_id":"bot@im.bot","message_type":2,"item_list":[{"type":1,"text_item":{"text":"own"}}]}""",
            """
            {"message_id":10,"from_user_id":"wxid_alice@im.wechat","group_id":"123@chatroom","message_type":1,"item_list":[
             {"type":1,"text_item":{"text":"@Herald hi"}},{"type":3,"voice_item":{"text":"spoken","media":{"encrypt_query_param":"p",
             "aes_key":"MDEyMzQ1Njc4OWFiY2RlZg=="}}},{"type":4,"file_item":{"file_name":"a.pdf","len":"12","media":{
             "encrypt_query_param":"q","aes_key":"bad"}}}],"context_token":"ctx-3"}""");

    @TempDir
    Path dir;

    private final FakeILink fake = new FakeILink(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new WeixinAdapter(fake.settings(TOKEN),
            new WeixinSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(50),
                    Duration.ofMillis(300)), dir.resolve("weixin/state.json"), clock)).allow(USER).closing(fake);

    @Test
    void readingAMessage_neverThrows_andYieldsOnlyUsableIds() {
        Fuzzer.of("weixin message", CORPUS, 20_000).run(input -> {
            JsonNode m = JSON.readTree(input);
            if (m == null) {
                return;
            }
            WeixinMessages.Inbound in = WeixinMessages.inbound(m);
            if (in != null) {
                assertThat(SessionKey.of(SessionSource.dm(WeixinAdapter.PLATFORM, in.chatId(), in.fromUser()))).isNotNull();
                assertThat(in.media()).hasSizeLessThanOrEqualTo(WeixinMessages.MAX_MEDIA);
                for (WeixinMessages.MediaItem item : in.media()) {
                    try {
                        WeixinCdn.key(item.hexKey(), item.aesKey());
                    } catch (java.io.IOException refused) {
                        if (item.aesKey() != null && item.aesKey().length() >= 8) {
                            assertThat(refused.getMessage()).as("a bad key is named, never shown").doesNotContain(item.aesKey());
                        }
                    }
                }
            }
        }, t -> t instanceof JacksonException);
    }

    @Test
    void adapter_survivesMalformedMessages_andAnswersTheNextGoodMessage() throws Exception {
        h.start();
        Fuzzer.wire("weixin wire", CORPUS, 300).run(input -> {
            if (JSON.readTree(input) instanceof ObjectNode m) {
                fake.deliverAgain(m);
            }
        }, t -> t instanceof JacksonException);
        fake.userSays(USER, "still there?", "ctx-final");

        await().atMost(WAIT.multipliedBy(2)).until(() -> fake.sent().stream()
                .anyMatch(s -> s.path("item_list").path(0).path("text_item").path("text").asText().equals("echo: still there?")));
        assertThat(h.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(USER));
        assertThat(JSON.readTree(Files.readString(dir.resolve("weixin/state.json"))).isObject()).as("the state file stays readable").isTrue();
    }
}
