package dev.herald.platforms.mattermost;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.mattermost.FakeMattermost.ALICE;
import static dev.herald.platforms.mattermost.FakeMattermost.BOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * Mattermost WebSocket frames from a hostile or broken server: the frame parser and the post normalisation never throw
 * and make only well-formed events, and the running adapter survives a stream of malformed frames and still answers the
 * next good post, having stored turns only for allowed users.
 */
@Tag("fuzz")
class MattermostFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> CORPUS = List.of(
            """
            {"event":"posted","data":{"channel_display_name":"","channel_name":"alice000000000000000000001__herald0bot0000000000000001",
             "channel_type":"D","post":"{\\"id\\":\\"post0000000000000000000001\\",\\"create_at\\":1712000000000,\\"update_at\\":1712000000000,
             \\"delete_at\\":0,\\"user_id\\":\\"alice000000000000000000001\\",\\"channel_id\\":\\"dm00000000000000000000001x\\",\\"root_id\\":\\"\\",
             \\"message\\":\\"hi there\\",\\"type\\":\\"\\",\\"props\\":{},\\"file_ids\\":[]}","sender_name":"@alice","team_id":""},
             "broadcast":{"omit_users":null,"user_id":"","channel_id":"dm00000000000000000000001x","team_id":""},"seq":1}""",
            """
            {"event":"posted","data":{"channel_display_name":"Town Square","channel_name":"town-square","channel_type":"O",
             "post":"{\\"id\\":\\"post0000000000000000000002\\",\\"create_at\\":1712000000001,\\"user_id\\":\\"bob00000000000000000000001\\",
             \\"channel_id\\":\\"town0000000000000000square\\",\\"root_id\\":\\"post0000000000000000000001\\",\\"message\\":\\"@herald what is 2+2?\\",
             \\"type\\":\\"\\",\\"props\\":{\\"from_bot\\":\\"false\\"},\\"file_ids\\":[\\"file0000000000000000000001\\"],
             \\"metadata\\":{\\"files\\":[{\\"id\\":\\"file0000000000000000000001\\",\\"name\\":\\"a.png\\",\\"mime_type\\":\\"image/png\\",\\"size\\":10}]}}",
             "sender_name":"@bob","mentions":"[\\"herald0bot0000000000000001\\"]","team_id":"team0000000000000000000001"},"seq":2}""",
            """
            {"event":"hello","data":{"connection_id":"conn000000000000000000001x","server_version":"10.5.0"},"broadcast":{},"seq":0}""",
            """
            {"status":"OK","seq_reply":2,"data":{"text":"pong","version":"10.5.0","server_time":1712000000000}}""",
            """
            {"event":"typing","data":{"parent_id":"","user_id":"alice000000000000000000001"},"broadcast":{"channel_id":"x"},"seq":3}""",
            """
            {"status":"FAIL","seq_reply":1,"error":{"id":"api.web_socket_router.not_authenticated.app_error"}}""");

    final FakeMattermost mm = new FakeMattermost();
    @RegisterExtension
    final GatewayFixture herald = mm.herald(ALICE, BOB);

    @Test
    void frameParsingAndNormalisation_neverThrow_andEveryEventTheyMakeIsWellFormed() {
        MattermostFrames frames = new MattermostFrames(JSON);
        MattermostPosts posts = new MattermostPosts(mm.settings(), Clock.systemUTC());
        posts.self(FakeMattermost.BOT, "herald");
        Fuzzer.of("mattermost frame", CORPUS, 10_000).run(input -> {
            if (frames.parse(input) instanceof MattermostFrames.Posted p) {
                posts.normalise(p.post(), p.channelType(), p.channelName(), p.channelDisplayName(), p.senderName())
                        .ifPresent(MattermostFuzzTest::wellFormed);
            }
        }, t -> false);
    }

    @Test
    void adapter_survivesMalformedFrames_andAnswersTheNextGoodPost() {
        herald.start();
        Fuzzer.wire("mattermost wire", CORPUS, 400).run(mm::raw, t -> false);
        String dm = mm.dm(ALICE);

        mm.say(ALICE, dm, "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> mm.botMessages(dm).contains("echo: still there?"));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn(ALICE, BOB));
    }

    @Test
    void aFrameHeraldCannotRead_isSkippedWithALogLine_andTheAdapterKeepsAnswering() {
        herald.start();
        mm.raw("{\"event\":\"posted\",\"seq\":1,\"data\":{\"channel_type\":\"D\",\"post\":\"{not json\"}}");
        mm.raw("\u0000\u00ff not a frame");
        mm.raw("{\"event\":\"posted\",\"data\":{\"post\":\"" + "[".repeat(5_000) + "\"}}");
        String dm = mm.dm(ALICE);

        mm.say(ALICE, dm, "are you alive?");

        await().atMost(WAIT).until(() -> mm.botMessages(dm).contains("echo: are you alive?"));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotBlank();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.messageId()).isNotBlank();
        assertThat(e.text().length()).isLessThanOrEqualTo(MattermostPosts.MAX_MESSAGE);
    }
}
