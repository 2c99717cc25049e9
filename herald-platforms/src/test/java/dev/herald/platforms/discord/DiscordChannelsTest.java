package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.persona.Personas;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.platform.ChannelOverrides;
import dev.herald.core.platform.ChannelOverrides.Channel;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's settings for single Discord channels ({@code platforms.discord.channels}) as a user meets them: the
 * real adapter against the Discord fake, the real gateway and SQLite store, and the real agent with two model profiles
 * whose client talks to the scripted model server on loopback. What the model was offered is read from that server.
 */
class DiscordChannelsTest {
    private static final String MENTION = "<@" + FakeDiscord.BOT_ID + "> ";
    /** A channel with a model, a persona, fewer tools and no mention needed. */
    private static final String FAST = "300000000000000001";
    /** A channel whose new messages interrupt the running turn. */
    private static final String HASTY = "300000000000000002";
    /** A channel with no settings of its own. */
    private static final String GENERAL = "300000000000000003";

    @TempDir
    Path tmp;

    private final FakeModelServer model = FakeModelServer.start().defaultReply(r -> Reply.text("echo: " + r.lastUserMessage()));
    private final OpenAiCompatibleClient main = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "main-1").withMaxRetries(0));
    private final OpenAiCompatibleClient quick = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "quick-1").withMaxRetries(0));
    private final ChannelOverrides channels = (platform, chatId) -> Optional.ofNullable(Map.of(
            FAST, new Channel("fast", "pirate", List.of("read_file"), null, false),
            HASTY, new Channel(null, null, null, "interrupt", null)).get(chatId)).filter(o -> platform.equals(DiscordAdapter.PLATFORM));

    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = fixture();

    private GatewayFixture fixture() {
        GatewayFixture[] f = new GatewayFixture[1];
        f[0] = new GatewayFixture(clock -> {
            DiscordAdapter a = new DiscordAdapter(discord.settings(FakeDiscord.TOKEN).withStreaming(false), FakeDiscord.timing(), clock,
                    f[0].storage.platformState());
            a.useChannels(channels);
            return a;
        }).allow("u1").readyWhen(() -> !discord.sent(2).isEmpty() && discord.connected()).closing(discord);
        return f[0];
    }

    @AfterEach
    void stop() {
        main.close();
        quick.close();
        model.close();
    }

    private void start() {
        ChatPreferences preferences = new ChatPreferences() {
            @Override
            public Optional<String> get(SessionKey key, String name) {
                return herald.storage.chatPreferences().get(key, name);
            }

            @Override
            public void set(SessionKey key, String name, String value) {
                herald.storage.chatPreferences().set(key, name, value);
            }
        };
        ModelChoiceStore choices = new ModelChoiceStore() {
            @Override
            public Optional<String> chosen(SessionKey key) {
                return herald.storage.modelChoices().chosen(key);
            }

            @Override
            public void choose(SessionKey key, String profile) {
                herald.storage.modelChoices().choose(key, profile);
            }
        };
        ToolSettings tools = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file", "list_dir"));
        Personas personas = new Personas(Map.of("pirate", new Personas.Persona("pirate", "Speak like a pirate.", null)), preferences);
        ProfileAgent agent = new ProfileAgent(List.of(new ProfileAgent.Profile(ProfileAgent.DEFAULT, main, AgentSettings.DEFAULT),
                new ProfileAgent.Profile("fast", quick, AgentSettings.DEFAULT)), ToolRegistry.standard(tools), p -> Optional.empty(), choices,
                dev.herald.agent.voice.VoiceSettings.defaults(), preferences, personas);
        herald.agentOverride(agent);
        herald.with(b -> b.channels(channels).command(new dev.herald.agent.persona.PersonalityCommand(personas, choices)));
        herald.start();
    }

    /** The request the model got for {@code text}. */
    private RecordedRequest requestFor(String text) {
        await().atMost(WAIT).until(() -> model.requests().stream().anyMatch(r -> text.equals(r.lastUserMessage())));
        return model.requests().stream().filter(r -> text.equals(r.lastUserMessage())).reduce((a, b) -> b).orElseThrow();
    }

    private void awaitPost(String channel, String content) {
        await().atMost(WAIT).until(() -> discord.postsTo(channel).stream().anyMatch(p -> p.content().equals(content)));
    }

    @Test
    void aChannelWithItsOwnSettings_answersWithoutAMention_onItsModel_asItsPersona_withFewerTools_whileOtherChannelsKeepTheDefaults() {
        start();

        discord.message("6001", GENERAL, FakeDiscord.GUILD, "u1", "unmentioned in general");
        discord.message("6002", FAST, FakeDiscord.GUILD, "u1", "unmentioned in fast");
        discord.message("6003", GENERAL, FakeDiscord.GUILD, "u1", MENTION + "mentioned in general");

        awaitPost(FAST, "echo: unmentioned in fast");
        awaitPost(GENERAL, "echo: mentioned in general");
        RecordedRequest fast = requestFor("unmentioned in fast");
        RecordedRequest general = requestFor("mentioned in general");
        assertThat(fast.model()).isEqualTo("quick-1");
        assertThat(general.model()).isEqualTo("main-1");
        assertThat(fast.toolNames()).contains("read_file").doesNotContain("list_dir");
        assertThat(general.toolNames()).contains("read_file", "list_dir");
        assertThat(fast.messages().stream().filter(m -> m.role().equals("system")).map(RecordedRequest.Message::content))
                .anyMatch(s -> s.contains("Speak like a pirate."));
        assertThat(general.messages().stream().filter(m -> m.role().equals("system")).map(RecordedRequest.Message::content))
                .noneMatch(s -> s.contains("Speak like a pirate."));
        assertThat(model.requests()).as("the unmentioned message in general started no turn")
                .noneMatch(r -> "unmentioned in general".equals(r.lastUserMessage()));
        assertThat(discord.postsTo(GENERAL)).hasSize(1);
    }

    @Test
    void aUsersOwnModelChoice_winsOverTheChannels() {
        start();

        discord.message("6101", FAST, FakeDiscord.GUILD, "u1", "/model default");
        await().atMost(WAIT).until(() -> discord.postsTo(FAST).size() == 1);
        discord.message("6102", FAST, FakeDiscord.GUILD, "u1", "after choosing");

        awaitPost(FAST, "echo: after choosing");
        assertThat(requestFor("after choosing").model()).isEqualTo("main-1");
    }

    @Test
    void inAnInterruptChannel_aNewMessageInterruptsTheRunningTurn_whileElsewhereItWaits() {
        start();
        Hold hasty = model.enqueueHeld(Reply.text("too late"));
        discord.message("6201", HASTY, FakeDiscord.GUILD, "u1", MENTION + "a long question");
        hasty.awaitArrived(WAIT);
        discord.message("6202", HASTY, FakeDiscord.GUILD, "u1", MENTION + "never mind, this instead");

        awaitPost(HASTY, "echo: never mind, this instead");
        hasty.release();
        await().atMost(WAIT).until(() -> outcome("6201") != null);
        assertThat(outcome("6201")).isEqualTo("interrupted");

        Hold patient = model.enqueueHeld(Reply.text("the first answer"));
        discord.message("6301", GENERAL, FakeDiscord.GUILD, "u1", MENTION + "first");
        patient.awaitArrived(WAIT);
        discord.message("6302", GENERAL, FakeDiscord.GUILD, "u1", MENTION + "second");
        await().atMost(WAIT).until(() -> turn("6302") != null);
        patient.release();

        awaitPost(GENERAL, "echo: second");
        assertThat(discord.postsTo(GENERAL).stream().map(FakeDiscord.Post::content)).containsExactly("the first answer", "echo: second");
        assertThat(outcome("6301")).isEqualTo("final");
    }

    @Test
    void aChatsOwnBusyChoice_winsOverItsChannels() {
        start();
        discord.message("6401", HASTY, FakeDiscord.GUILD, "u1", MENTION + "/busy queue");
        await().atMost(WAIT).until(() -> discord.postsTo(HASTY).size() == 1);

        Hold held = model.enqueueHeld(Reply.text("the whole answer"));
        discord.message("6402", HASTY, FakeDiscord.GUILD, "u1", MENTION + "first");
        held.awaitArrived(WAIT);
        discord.message("6403", HASTY, FakeDiscord.GUILD, "u1", MENTION + "second");
        await().atMost(WAIT).until(() -> turn("6403") != null);
        held.release();

        awaitPost(HASTY, "echo: second");
        assertThat(outcome("6402")).as("the chat chose queue: its channel's interrupt does not apply").isEqualTo("final");
        assertThat(discord.postsTo(HASTY).stream().map(FakeDiscord.Post::content)).contains("the whole answer");
    }

    private TurnRecord turn(String messageId) {
        return herald.turns().stream().filter(t -> messageId.equals(t.platformMessageId())).findFirst().orElse(null);
    }

    private String outcome(String messageId) {
        TurnRecord t = turn(messageId);
        return t == null ? null : t.outcome();
    }
}
