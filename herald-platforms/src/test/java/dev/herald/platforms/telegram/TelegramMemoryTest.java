package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.memory.MemoryBook;
import dev.herald.agent.memory.MemoryCommand;
import dev.herald.agent.memory.MemorySettings;
import dev.herald.agent.memory.MemoryTool;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.persona.Personas;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long-term memory as two Telegram users see it, through the Bot API fake, the real adapter, gateway, SQLite store and
 * agent (the scripted model server calls the memory tool): Ann's fact, remembered in her private chat, is listed by her
 * {@code /memory} in a group, while Bob's {@code /memory} in the same group, his forget of her fact's number and his own
 * turns never show it; Ann forgets it, and {@code /memory approve} makes a pending fact count.
 */
class TelegramMemoryTest {
    private static final String TOKEN = "4545:fake-secret-token";
    private static final long ANN = 100;
    private static final long BOB = 200;
    private static final long GROUP = -100777;

    @TempDir
    Path tmp;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private final FakeModelServer model = FakeModelServer.start().defaultReply(r -> Reply.text("echo: " + r.lastUserMessage()));
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "m-1").withMaxRetries(0));
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(ANN), Long.toString(BOB)).closing(fake);

    @AfterEach
    void stop() {
        client.close();
        model.close();
    }

    /** The memories of the store of the gateway running now. */
    private final Memories memories = new Memories() {
        @Override
        public Memory add(String owner, String text, String source, Memory.Status status, Instant at) {
            return h.storage.memories().add(owner, text, source, status, at);
        }

        @Override
        public List<Memory> list(String owner, boolean withPending, int limit) {
            return h.storage.memories().list(owner, withPending, limit);
        }

        @Override
        public int count(String owner) {
            return h.storage.memories().count(owner);
        }

        @Override
        public boolean forget(String owner, long id) {
            return h.storage.memories().forget(owner, id);
        }

        @Override
        public boolean approve(String owner, long id) {
            return h.storage.memories().approve(owner, id);
        }

        @Override
        public int purge(String owner) {
            return h.storage.memories().purge(owner);
        }
    };

    private void start(MemorySettings settings) {
        MemoryBook book = new MemoryBook(memories, settings, h.clock);
        ToolSettings tools = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("memory"));
        List<dev.herald.agent.tool.Tool> builtins = new ArrayList<>(BuiltinTools.all(tools));
        builtins.add(new MemoryTool(book));
        ProfileAgent agent = new ProfileAgent(List.of(new ProfileAgent.Profile(ProfileAgent.DEFAULT, client, AgentSettings.DEFAULT)),
                new ToolRegistry(tools, builtins, List.of()), p -> Optional.empty(), ModelChoiceStore.inMemory(),
                dev.herald.agent.voice.VoiceSettings.defaults(), ChatPreferences.inMemory(), Personas.none(), book);
        h.agentOverride(agent);
        h.with(b -> b.command(new MemoryCommand(book)).command(new dev.herald.agent.ContextCommand(agent, h.storage)));
        h.start();
    }

    private List<String> texts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText().replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&amp;", "&")).toList();
    }

    private String say(long user, String text, Consumer<ObjectNode> shape) {
        int before = texts().size();
        fake.userSays(user, text, shape);
        await().atMost(WAIT).until(() -> texts().size() > before);
        return texts().get(before);
    }

    private String dm(long user, String text) {
        return say(user, text, m -> { });
    }

    private String inGroup(long user, String text) {
        return say(user, text, m -> m.withObject("chat").put("id", GROUP).put("type", "group"));
    }

    private static String systemLine(String context) {
        return context.lines().filter(l -> l.contains("System prompt")).findFirst().orElseThrow();
    }

    private static String system(RecordedRequest request) {
        return request.messages().stream().filter(m -> m.role().equals("system")).map(RecordedRequest.Message::content).findFirst().orElse("");
    }

    private static Reply call(String args) {
        return Reply.toolCalls(new Reply.ToolCall("m" + Math.abs(args.hashCode()), "memory", args));
    }

    @Test
    void annsFact_isHersAlone_inEveryChat_untilSheForgetsIt() {
        start(MemorySettings.DEFAULTS);
        model.enqueue(call("{\"action\":\"remember\",\"text\":\"Prefers tea over coffee\"}"), Reply.text("Noted: tea."));
        assertThat(dm(ANN, "remember that I prefer tea")).isEqualTo("Noted: tea.");
        long id = h.storage.memories().list("telegram:" + ANN, true, 10).getFirst().id();

        assertThat(inGroup(ANN, "/memory")).startsWith("What I remember about you (1 of at most 100):\n#" + id + " Prefers tea over coffee (")
                .contains("/memory forget <number>");
        assertThat(inGroup(BOB, "/memory")).startsWith("I remember nothing about you across conversations.");
        assertThat(inGroup(BOB, "/memory forget " + id)).isEqualTo("You have no fact " + id + ". /memory lists yours.");

        model.enqueue(call("{\"action\":\"recall\",\"query\":\"tea\"}"), Reply.text("I know nothing about your drinks."));
        assertThat(dm(BOB, "what do I like to drink?")).isEqualTo("I know nothing about your drinks.");
        assertThat(system(model.lastRequest())).doesNotContain("tea");
        assertThat(model.lastRequest().messages().stream().filter(m -> m.role().equals("tool")).map(RecordedRequest.Message::content))
                .containsExactly("No remembered fact matches 'tea'.");

        String first = h.storage.sessions().search(dev.herald.core.session.SessionQuery.all(10)).stream()
                .filter(e -> e.key().value().endsWith(":" + ANN)).findFirst().orElseThrow().sessionId();
        dm(ANN, "/new");
        assertThat(dm(ANN, "what should I drink?")).as("a new session of Ann's private chat").isEqualTo("echo: what should I drink?");
        assertThat(h.storage.sessions().search(dev.herald.core.session.SessionQuery.all(10)).stream()
                .filter(e -> e.key().value().endsWith(":" + ANN)).findFirst().orElseThrow().sessionId()).isNotEqualTo(first);
        assertThat(system(model.lastRequest())).contains("\n- Prefers tea over coffee (");

        assertThat(systemLine(inGroup(ANN, "/context"))).as("Ann's /context counts her facts in the system prompt, Bob's does not")
                .isNotEqualTo(systemLine(inGroup(BOB, "/context")));

        assertThat(inGroup(ANN, "/memory forget #" + id)).isEqualTo("Forgot fact " + id + ".");
        assertThat(inGroup(ANN, "/memory")).startsWith("I remember nothing about you");
        dm(ANN, "and now?");
        assertThat(system(model.lastRequest())).doesNotContain("tea");
        assertThat(dm(ANN, "/help")).contains("/memory [forget|approve <number>|clear] - what the agent remembers about you");
    }

    @Test
    void approveNew_listsTheFactAsPending_untilTheUserApprovesIt_andClearForgetsAll() {
        start(new MemorySettings(true, 100, 2000, true));
        model.enqueue(call("{\"action\":\"remember\",\"text\":\"Has a cat named Io\"}"), Reply.text("Approve it with /memory approve."));
        dm(ANN, "remember my cat Io");
        long id = h.storage.memories().list("telegram:" + ANN, true, 10).getFirst().id();
        assertThat(dm(ANN, "/memory")).contains("#" + id + " Has a cat named Io (").contains(" - pending: /memory approve " + id);
        assertThat(dm(BOB, "/memory approve " + id)).isEqualTo("You have no pending fact " + id + ". /memory lists yours.");
        dm(ANN, "hello");
        assertThat(system(model.lastRequest())).doesNotContain("Io");

        assertThat(dm(ANN, "/memory approve " + id)).isEqualTo("Approved fact " + id + "; the agent uses it from now on.");
        dm(ANN, "hello again");
        assertThat(system(model.lastRequest())).contains("- Has a cat named Io (");

        assertThat(dm(ANN, "/memory clear")).isEqualTo("Forgot all 1 fact.");
        assertThat(dm(ANN, "/memory nonsense")).startsWith("Unknown /memory action 'nonsense'.");
        assertThat(h.storage.memories().count("telegram:" + ANN)).isZero();
    }
}
