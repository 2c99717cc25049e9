package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.memory.MemoryBook;
import dev.herald.agent.memory.MemorySettings;
import dev.herald.agent.memory.MemoryTool;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.persona.Personas;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.memory.Memory;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long-term memory through the real agent, the fake model's tool calls and a SQLite store: a fact remembered in one
 * session is in the system prompt of the same user's next session, and never in another user's, whose recall and
 * forget cannot reach it.
 */
class MemoryTurnTest {
    private static final String ANN = "telegram:100";
    private static final String BOB = "telegram:200";

    @TempDir
    Path root;
    @TempDir
    Path db;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();
    private SqliteStorage storage;
    private MemoryBook book;

    @AfterEach
    void stop() {
        client.close();
        fake.close();
        if (storage != null) {
            storage.close();
        }
    }

    private ProfileAgent agent(MemorySettings settings) {
        storage = SqliteStorage.open(db.resolve("herald.db"), Clock.systemUTC());
        book = new MemoryBook(storage.memories(), settings, Clock.systemUTC());
        return new ProfileAgent(List.of(new ProfileAgent.Profile(ProfileAgent.DEFAULT, client, AgentSettings.DEFAULT)),
                Harness.registry(root, List.of(new MemoryTool(book))), platform -> Optional.empty(), ModelChoiceStore.inMemory(),
                dev.herald.agent.voice.VoiceSettings.defaults(), ChatPreferences.inMemory(), Personas.none(), book);
    }

    private static TurnRequest turn(String session, String user, String text) {
        return new TurnRequest(session, "agent:main:telegram:group:-5", List.of(), text, true, "telegram", TurnOptions.NONE, List.of(), user);
    }

    private static Reply call(String args) {
        return Reply.toolCalls(new Reply.ToolCall("c" + args.hashCode(), "memory", args));
    }

    private static String system(RecordedRequest request) {
        return request.messages().stream().filter(m -> m.role().equals("system")).map(RecordedRequest.Message::content).findFirst().orElse("");
    }

    private List<String> results() {
        return listener.toolResults().stream().map(ChatMessage::content).toList();
    }

    @Test
    void aFactRemembered_isInTheSameUsersNextSession_andNeverInAnotherUsers() {
        ProfileAgent agent = agent(MemorySettings.DEFAULTS);
        fake.enqueue(call("{\"action\":\"remember\",\"text\":\"Prefers tea over coffee\"}"), Reply.text("Noted."));
        agent.runTurn(turn("s-1", ANN, "remember that I prefer tea"), listener, new Interrupt());
        assertThat(results().getFirst()).startsWith("Remembered as fact ").endsWith(": Prefers tea over coffee");

        fake.enqueue(Reply.text("Tea, then."));
        agent.runTurn(turn("s-2", ANN, "what should I drink?"), listener, new Interrupt());
        assertThat(system(fake.lastRequest())).contains(MemoryBookText.HEADER).contains("\n- Prefers tea over coffee (");

        long annsFact = storage.memories().list(ANN, true, 10).getFirst().id();
        fake.enqueue(call("{\"action\":\"recall\"}"), call("{\"action\":\"recall\",\"query\":\"tea\"}"),
                call("{\"action\":\"forget\",\"number\":" + annsFact + "}"), Reply.text("Nothing about you."));
        agent.runTurn(turn("s-3", BOB, "what do you know about me? forget fact " + annsFact), listener, new Interrupt());
        assertThat(fake.requests().get(fake.requests().size() - 4).messages().toString()).doesNotContain("Prefers tea");
        assertThat(system(fake.lastRequest())).doesNotContain("Prefers tea").doesNotContain(MemoryBookText.HEADER);
        assertThat(results().subList(1, 4)).containsExactly("You remember nothing about this user yet.", "No remembered fact matches 'tea'.",
                "Error: this user has no fact " + annsFact + "; recall shows their facts with their numbers");
        assertThat(storage.memories().list(ANN, true, 10)).extracting(Memory::text).containsExactly("Prefers tea over coffee");
    }

    @Test
    void forget_byTheOwner_takesTheFactOutOfTheNextPrompt() {
        ProfileAgent agent = agent(MemorySettings.DEFAULTS);
        long id = storage.memories().add(ANN, "Lives in Oslo", null, Memory.Status.ACTIVE, java.time.Instant.now()).id();
        fake.enqueue(call("{\"action\":\"forget\",\"number\":" + id + "}"), Reply.text("Forgotten."));
        agent.runTurn(turn("s-1", ANN, "forget where I live"), listener, new Interrupt());
        assertThat(system(fake.requests().getFirst())).contains("- Lives in Oslo");
        assertThat(results()).containsExactly("Forgot fact " + id + ".");

        fake.enqueue(Reply.text("hi"));
        agent.runTurn(turn("s-2", ANN, "hello"), listener, new Interrupt());
        assertThat(system(fake.lastRequest())).doesNotContain("Oslo");
    }

    @Test
    void approveNew_keepsAFactPending_outOfThePrompt_untilTheUserApprovesIt() {
        ProfileAgent agent = agent(new MemorySettings(true, 100, 2000, true));
        fake.enqueue(call("{\"action\":\"remember\",\"text\":\"Has a cat named Io\"}"), Reply.text("I will once you approve."));
        agent.runTurn(turn("s-1", ANN, "remember my cat Io"), listener, new Interrupt());
        Memory pending = storage.memories().list(ANN, true, 10).getFirst();
        assertThat(pending.pending()).isTrue();
        assertThat(results().getFirst()).isEqualTo("Stored as fact " + pending.id() + ", waiting for the user's approval: it is used only after "
                + "they send /memory approve " + pending.id() + ". Tell them so.");

        fake.enqueue(Reply.text("hi"));
        agent.runTurn(turn("s-2", ANN, "hello"), listener, new Interrupt());
        assertThat(system(fake.lastRequest())).doesNotContain("Io");

        assertThat(book.approve(ANN, pending.id())).as("as /memory approve does").isTrue();
        fake.enqueue(Reply.text("hi"));
        agent.runTurn(turn("s-3", ANN, "hello"), listener, new Interrupt());
        assertThat(system(fake.lastRequest())).contains("- Has a cat named Io");
    }

    @Test
    void disabled_offersNoPromptBlock_andAStatelessTurnHasNoMemory() {
        ProfileAgent agent = agent(new MemorySettings(false, 100, 2000, false));
        storage.memories().add(ANN, "Prefers tea", null, Memory.Status.ACTIVE, java.time.Instant.now());
        fake.enqueue(Reply.text("hi"));
        agent.runTurn(turn("s-1", ANN, "hello"), listener, new Interrupt());
        assertThat(system(fake.lastRequest())).doesNotContain("tea");

        ProfileAgent on = new ProfileAgent(List.of(new ProfileAgent.Profile(ProfileAgent.DEFAULT, client, AgentSettings.DEFAULT)),
                Harness.registry(root, List.of(new MemoryTool(new MemoryBook(storage.memories(), MemorySettings.DEFAULTS, Clock.systemUTC())))),
                platform -> Optional.empty(), ModelChoiceStore.inMemory(), dev.herald.agent.voice.VoiceSettings.defaults(),
                ChatPreferences.inMemory(), Personas.none(), null);
        fake.enqueue(call("{\"action\":\"recall\"}"), Reply.text("no"));
        on.runTurn(new TurnRequest("s-9", null, List.of(), "who am I?", false, "api_server"), listener, new Interrupt());
        assertThat(results().getLast()).isEqualTo("Error: long-term memory belongs to a user, and this conversation has none (a stateless API call)");
    }

    /** The header the prompt block opens with (package-private in {@link MemoryBook}). */
    private static final class MemoryBookText {
        static final String HEADER = "What you remember about this user from earlier conversations";
    }
}
