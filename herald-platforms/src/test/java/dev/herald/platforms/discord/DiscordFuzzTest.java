package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Discord Gateway frames from a hostile or broken server: message normalisation never throws and makes only
 * well-formed events, and the running adapter survives a stream of malformed frames (it is never stopped by one)
 * and still answers the next good message, having stored turns only for allowed users.
 */
@Tag("fuzz")
class DiscordFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> CORPUS = List.of(
            """
            {"op":0,"t":"MESSAGE_CREATE","s":5,"d":{"id":"5001","channel_id":"dm-1","content":"hi there","type":0,
             "author":{"id":"u1","username":"user-u1","global_name":"U One"},"mentions":[],"attachments":[]}}""",
            """
            {"op":0,"t":"MESSAGE_CREATE","s":6,"d":{"id":"5102","channel_id":"general-1","guild_id":"200000000000000001",
             "content":"<@100000000000000001> what is 2+2?","type":19,"author":{"id":"u2","username":"user-u2"},
             "mentions":[{"id":"100000000000000001","username":"herald"}],"message_reference":{"message_id":"5101"},
             "attachments":[{"id":"9","url":"https://cdn.example/a.png","filename":"a.png","content_type":"image/png","size":10}]}}""",
            """
            {"op":0,"t":"MESSAGE_CREATE","s":7,"d":{"id":"5201","channel_id":"thread-7","guild_id":"200000000000000001",
             "content":"in thread","type":0,"author":{"id":"u1","bot":false},"webhook_id":null}}""",
            """
            {"op":0,"t":"READY","s":1,"d":{"v":10,"session_id":"session-9","resume_gateway_url":"ws://127.0.0.1:1/resume",
             "user":{"id":"100000000000000001","username":"herald","bot":true},"guilds":[{"id":"200000000000000001","unavailable":true}]}}""",
            """
            {"op":0,"t":"GUILD_CREATE","s":2,"d":{"id":"200000000000000001","name":"Test Guild","channels":[{"id":"general-1","type":0,
             "name":"general"}],"threads":[{"id":"thread-7","type":11,"parent_id":"general-1","name":"planning"}]}}""",
            """
            {"op":0,"t":"RESUMED","s":3,"d":null}""",
            """
            {"op":0,"t":"INTERACTION_CREATE","s":8,"d":{"id":"900000000000000001","application_id":"100000000000000001","type":3,
             "token":"aW50ZXJhY3Rpb24-tok.en_1","version":1,"channel_id":"general-1","guild_id":"200000000000000001",
             "data":{"custom_id":"herald:/approve always","component_type":2},"member":{"user":{"id":"u2","username":"user-u2",
             "global_name":"*U* @everyone"}},"message":{"id":"300000000000000001","channel_id":"general-1",
             "content":"Approval needed: shell\nReply /approve, /approve always, or /deny within 5 min."}}}""",
            """
            {"op":11}""",
            """
            {"op":1,"d":null}""");

    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1", "u2");

    @Test
    void messageNormalisation_neverThrows_andEveryEventItMakesIsWellFormed() {
        ChannelDirectory channels = new ChannelDirectory(id -> Optional.ofNullable(discord.channels.get(id)).map(JsonNode.class::cast));
        discord.thread("thread-7", "general-1", "planning");
        DiscordMessages messages = new DiscordMessages(discord.settings(FakeDiscord.TOKEN), channels, Clock.systemUTC());
        messages.self(FakeDiscord.BOT_ID);
        Fuzzer.of("discord message", CORPUS, 20_000).run(input -> {
            JsonNode frame = JSON.readTree(input);
            if (frame == null) {
                return;
            }
            messages.normalise(frame.path("d")).ifPresent(DiscordFuzzTest::wellFormed);
        }, t -> t instanceof JacksonException);
    }

    @Test
    void pressReading_neverThrows_andEveryPressIsOneOfHeraldsCommands_fromAUserInAChannel() {
        ChannelDirectory channels = new ChannelDirectory(id -> Optional.ofNullable(discord.channels.get(id)).map(JsonNode.class::cast));
        DiscordSettings settings = discord.settings(FakeDiscord.TOKEN);
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        DiscordPresses presses = new DiscordPresses(new DiscordRest(settings, FakeDiscord.timing(), http, JSON), channels, Clock.systemUTC(),
                JSON, dev.herald.platforms.common.PressLedger.memoryState());
        Fuzzer.of("discord press", CORPUS, 5_000).run(input -> {
            JsonNode frame = JSON.readTree(input);
            if (frame == null) {
                return;
            }
            presses.read(frame.path("d")).ifPresent(p -> {
                wellFormed(p.event());
                assertThat(p.command()).isIn("/approve", "/approve always", "/deny");
                assertThat(p.token()).matches("[A-Za-z0-9._-]{1,512}");
                assertThat(p.who()).doesNotContainPattern("(?<!\\\\)[*_@`]").hasSizeLessThanOrEqualTo(128);
            });
        }, t -> t instanceof JacksonException);
    }

    @Test
    void adapter_survivesMalformedFrames_andAnswersTheNextGoodMessage() {
        discord.thread("thread-7", "general-1", "planning");
        herald.start();
        Fuzzer.wire("discord wire", CORPUS, 400).run(input -> {
            String frame = input;
            try {
                // a READY that names another user as the bot is well formed; keep the bot's own id so that "still
                // answers" below means what it says
                if (JSON.readTree(input) instanceof ObjectNode p && p.path("t").asText().equals("READY") && p.path("d") instanceof ObjectNode d) {
                    d.putObject("user").put("id", FakeDiscord.BOT_ID).put("username", "herald");
                    frame = p.toString();
                }
            } catch (JacksonException notJson) {
                // sent as it is
            }
            discord.raw(frame);
        }, t -> false);

        // The stream can leave a reconnect in flight (op 7, op 9), a sequence number or a session id this server never
        // issued, or a resume URL where nothing listens: a message sent into that could be lost with the connection, as
        // it could on Discord. The server starts a new session, and the good message goes on its connection.
        int handshakes = discord.handshakes();
        discord.endSession();
        await().atMost(WAIT).until(() -> discord.handshakes() > handshakes && discord.connected());
        discord.message("9001", "dm-1", null, "u1", "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> discord.postsMatching("echo: still there?"::equals).size() == 1);
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn("u1", "u2"));
    }

    /** Found by the fuzzer: one READY with a malformed resume URL stopped the adapter until Herald restarted. */
    @Test
    void aDispatchHeraldCannotRead_isPassedOver_andTheAdapterKeepsAnswering() {
        herald.start();
        discord.raw("""
                {"op":0,"t":"READY","s":99,"d":{"session_id":"s","resume_gateway_url":"ws://[not a url",
                 "user":{"id":"100000000000000001","username":"herald"}}}""");
        discord.message("9002", "dm-1", null, "u1", "are you alive?");

        await().atMost(WAIT).until(() -> discord.postsMatching("echo: are you alive?"::equals).size() == 1);
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotBlank();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
