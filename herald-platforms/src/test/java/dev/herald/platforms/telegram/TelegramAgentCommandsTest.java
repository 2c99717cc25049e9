package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ContextCommand;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.ReasoningCommand;
import dev.herald.agent.compress.CompressionSettings;
import dev.herald.agent.mcp.McpServerSettings;
import dev.herald.agent.mcp.McpTools;
import dev.herald.agent.mcp.ReloadMcpCommand;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.agent.ModelOption;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * /context, /compress with focus words, /reasoning, /reload-mcp and the usage footer as a Telegram user reads them:
 * the real adapter against the Bot API fake, the real gateway and SQLite store, and the real agent (two model profiles,
 * one that takes reasoning efforts and has prices, one that takes none) whose client talks to the scripted model server
 * on loopback. What the model was sent is read from that server.
 */
class TelegramAgentCommandsTest {
    private static final String TOKEN = "4545:fake-secret-token";
    private static final long USER = 100;
    private static final long ADMIN = 200;

    @TempDir
    Path tmp;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private final FakeModelServer model = FakeModelServer.start()
            .defaultReply(r -> Reply.text("echo: " + r.lastUserMessage()).withUsage(1_200, 34));
    private final OpenAiCompatibleClient thinker = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "thinker-1")
            .withMaxRetries(0).withReasoningEfforts(List.of("low", "high")));
    private final OpenAiCompatibleClient plain = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "plain-1").withMaxRetries(0));
    private final OpenAiCompatibleClient light = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "light-1")
            .withMaxRetries(0).withReasoningEfforts(List.of("low")));
    private McpTools mcp;
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).admins(Long.toString(ADMIN)).closing(fake);

    @AfterEach
    void stop() {
        thinker.close();
        plain.close();
        light.close();
        model.close();
        if (mcp != null) {
            mcp.close();
        }
    }

    /** The chats' choices in the store of the gateway running now. */
    private final ChatPreferences preferences = new ChatPreferences() {
        @Override
        public Optional<String> get(SessionKey key, String name) {
            return h.storage.chatPreferences().get(key, name);
        }

        @Override
        public void set(SessionKey key, String name, String value) {
            h.storage.chatPreferences().set(key, name, value);
        }
    };

    private final ModelChoiceStore choices = new ModelChoiceStore() {
        @Override
        public Optional<String> chosen(SessionKey key) {
            return h.storage.modelChoices().chosen(key);
        }

        @Override
        public void choose(SessionKey key, String profile) {
            h.storage.modelChoices().choose(key, profile);
        }
    };

    /** The agent as Herald wires it, with its commands; {@code servers} are the MCP servers /reload-mcp reads. */
    private void start(List<McpServerSettings> servers) {
        ToolSettings tools = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file", "list_dir"));
        AgentSettings settings = new AgentSettings("You are Herald, a careful assistant.", null, null, 10,
                CompressionSettings.forModel("thinker-1", 16_000));
        ProfileAgent agent = new ProfileAgent(List.of(
                new ProfileAgent.Profile(ProfileAgent.DEFAULT, thinker, settings, new ModelOption.Prices(2.5, 10.0, null)),
                new ProfileAgent.Profile("plain", plain, AgentSettings.DEFAULT), new ProfileAgent.Profile("light", light, AgentSettings.DEFAULT)),
                ToolRegistry.standard(tools), p -> Optional.empty(), choices, dev.herald.agent.voice.VoiceSettings.defaults(), preferences);
        mcp = new McpTools(List.of()).start();
        h.agentOverride(agent);
        h.with(b -> b.command(new ContextCommand(agent, h.storage)).command(new ReasoningCommand(agent, preferences))
                .command(new ReloadMcpCommand(mcp, () -> servers)));
        h.start();
    }

    private List<String> texts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText().replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&amp;", "&")).toList();
    }

    private String say(long user, String text) {
        int before = texts().size();
        fake.userSays(user, text);
        await().atMost(WAIT).until(() -> texts().size() > before);
        return texts().get(before);
    }

    private String say(String text) {
        return say(USER, text);
    }

    @Test
    void reasoning_setPerChat_isSentOnlyToTheProfileThatTakesIt_andRefusedOnOneThatDoesNot() {
        start(List.of());
        assertThat(say("/reasoning")).isEqualTo("Reasoning in this chat: off (the model's own default). The model (default) takes "
                + "low, high; change it with /reasoning low|high|off.");
        say("first question");
        assertThat(model.lastRequest().json().has("reasoning_effort")).as("nothing chosen, nothing sent").isFalse();

        assertThat(say("/reasoning medium")).isEqualTo("The model of this chat (default) takes no reasoning effort 'medium'. "
                + "Use /reasoning low, high or off.");
        assertThat(say("/reasoning HIGH")).isEqualTo("Reasoning in this chat: high, from your next message on.");
        assertThat(say("think hard")).isEqualTo("echo: think hard");
        assertThat(model.lastRequest().json().path("reasoning_effort").asText()).isEqualTo("high");
        assertThat(say("/status")).contains("Reasoning: high");

        h.crash();
        start(List.of());
        assertThat(say("/reasoning")).startsWith("Reasoning in this chat: high. ");

        say("/model light");
        assertThat(say("/reasoning")).isEqualTo("Reasoning in this chat: high (this model takes no 'high', so none is sent). "
                + "The model (light) takes low; change it with /reasoning low|off.");
        say("light question");
        assertThat(model.lastRequest().model()).isEqualTo("light-1");
        assertThat(model.lastRequest().json().has("reasoning_effort")).isFalse();

        say("/model plain");
        assertThat(say("/reasoning high")).isEqualTo("The model of this chat (plain, plain-1) takes no reasoning effort. An operator "
                + "can list the efforts it takes under reasoning_efforts in its model profile; /model shows the others.");
        say("and now?");
        RecordedRequest sent = model.lastRequest();
        assertThat(sent.model()).isEqualTo("plain-1");
        assertThat(sent.json().has("reasoning_effort")).as("the chat's choice is kept but not sent where unsupported").isFalse();

        say("/model default");
        assertThat(say("/reasoning off")).isEqualTo("Reasoning in this chat: off (the model's own default), from your next message on.");
        say("last one");
        assertThat(model.lastRequest().json().has("reasoning_effort")).isFalse();
    }

    @Test
    void context_showsWhatFillsTheWindow_andCompressWithFocus_tellsTheModelAndSaysWhatWasCompressed() {
        start(List.of());
        List<String> empty = say("/context").lines().toList();
        assertThat(empty.getFirst()).startsWith("Context of this chat's next request (model default, thinker-1): ~")
                .contains(" of 16,000 tokens (");
        assertThat(empty).contains("\u2022 System prompt: ~13 (<0.1%)")
                .anyMatch(l -> l.matches("\u2022 Tool definitions: ~[1-9][0-9]+ \\([0-9.]+%\\)"))
                .contains("\u2022 Messages (0 in the transcript): ~0 (0.0%)", "\u2022 Tool results: ~0 (0.0%)",
                        "\u2022 Attachments (file lines): ~0 (0.0%)");

        for (int i = 1; i <= 4; i++) {
            say("message number " + i + " about the Lisbon trip and the budget " + "x".repeat(400));
        }
        List<String> full = say("/context").lines().toList();
        assertThat(full).anyMatch(l -> l.matches("\u2022 Messages \\(8 in the transcript\\): ~[0-9]{3} \\([0-9.]+%\\)"));
        assertThat(say("/context please")).startsWith("Usage: /context (no arguments)");

        model.enqueue(Reply.text("The user plans a Lisbon trip; budget discussed.").withUsage(900, 20));
        String compressed = say("/compress the budget");
        assertThat(compressed).matches("\ud83d\udddc Compressed 8 message\\(s\\) \\(~[0-9,]+ tokens\\) to [2-4] \\(~[0-9,]+ tokens\\): "
                + "a summary of [5-7] and the [1-3] most recent, focused on \u201cthe budget\u201d\\. The conversation continues in session .*\\.");
        RecordedRequest summary = model.lastRequest();
        assertThat(summary.messages().getFirst().content()).contains("everything about: \"the budget\"");

        List<String> after = say("/context").lines().toList();
        assertThat(after).anyMatch(l -> l.matches("\u2022 Messages \\([2-4] in the transcript\\): .*"));
        assertThat(say("/compress " + "y".repeat(501))).isEqualTo("The focus of /compress is at most 500 characters; this one has 501.");
    }

    @Test
    void usageFooter_on_endsEveryAnswerWithItsTokensAndCost_notInWhatTheModelReadsLater_off_stopsIt() {
        start(List.of());
        assertThat(say("/usage footer")).isEqualTo("Usage footer in this chat: off. Change it with /usage footer on or /usage footer off.");
        assertThat(say("/usage footer on")).isEqualTo("Usage footer on: every answer in this chat ends with its tokens and their cost.");
        assertThat(say("how much?")).isEqualTo("echo: how much?\n\n\u2500 1,200 in / 34 out tokens \u00b7 cost 0.0033");

        say("/model plain");
        assertThat(say("and here?")).isEqualTo("echo: and here?\n\n\u2500 1,200 in / 34 out tokens");
        List<String> history = model.lastRequest().messages().stream().map(RecordedRequest.Message::content).toList();
        assertThat(history).contains("echo: how much?").noneMatch(c -> c != null && c.contains("tokens \u00b7"));

        assertThat(say("/usage footer loud")).startsWith("Usage: /usage footer on or /usage footer off");
        assertThat(say("/usage footer off")).isEqualTo("Usage footer off.");
        assertThat(say("quiet now")).isEqualTo("echo: quiet now");
    }

    @Test
    void reloadMcp_isForAdmins_andNamesTheServersThatCameUpAndThoseThatFailed_neverTheirSecrets() throws Exception {
        List<McpServerSettings> servers = new ArrayList<>();
        start(servers);
        assertThat(say("/reload-mcp")).isEqualTo("\u26d4 /reload-mcp is for admins here; ask an admin of this Herald to run it for you.");
        assertThat(say(ADMIN, "/reload-mcp")).isEqualTo("\u267b\ufe0f MCP servers reloaded: none is configured (mcp_servers is empty).");

        servers.add(McpServerSettings.stdio("ghost", tmp.resolve("no-such-server").toString(), List.of("--token", "hunter2-secret"))
                .withEnv(java.util.Map.of("GHOST_TOKEN", "hunter2-secret")).withTimeout(Duration.ofSeconds(2)));
        String answer = say(ADMIN, "/reload-mcp");

        assertThat(answer).isEqualTo("\u267b\ufe0f MCP servers reloaded.\nFailed: ghost (retried in the background; the log says why)");
        assertThat(answer).doesNotContain("hunter2").doesNotContain("no-such-server");
        assertThat(say(ADMIN, "/help")).contains("/reload-mcp - restart the MCP servers from the configuration file (admins only)");
        assertThat(say("/help")).doesNotContain("/reload-mcp -").contains("For admins only: /reload-mcp /restart /sethome");
    }
}
