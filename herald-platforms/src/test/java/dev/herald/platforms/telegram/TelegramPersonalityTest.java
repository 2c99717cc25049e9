package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.persona.PersonalityCommand;
import dev.herald.agent.persona.Personas;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Personas as a Telegram user meets them: {@code /personality} lists them and chooses one for the chat, the model (the
 * fake OpenAI-compatible server) then gets the persona's instructions after the configured system prompt and, when the
 * persona names one, its model profile, until the chat chooses {@code /model}; the choice survives a crash and restart,
 * and {@code /personality default} goes back to none. Real ProfileAgent, gateway and SQLite store.
 */
class TelegramPersonalityTest {
    private static final String TOKEN = "4646:fake-secret-token";
    private static final long USER = 100;
    private static final String BASE = "You are Herald.";

    @TempDir
    Path tmp;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient small = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "small-model").withMaxRetries(0));
    private final OpenAiCompatibleClient large = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "large-model").withMaxRetries(0));
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    /** The chats' preferences and /model choices, in the store of the process that runs now. */
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

    @AfterEach
    void close() {
        small.close();
        large.close();
        model.close();
    }

    /** A process with the profiles default (small) and big (large), and the personas pirate (on big) and poet. */
    private void startProcess(Map<String, Personas.Persona> configured) {
        Personas personas = new Personas(configured, preferences);
        ToolRegistry tools = new ToolRegistry(dev.herald.agent.tool.ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of()),
                List.of(), List.of());
        h.agentOverride(new ProfileAgent(List.of(new ProfileAgent.Profile("default", small, AgentSettings.withSystemPrompt(BASE)),
                new ProfileAgent.Profile("big", large, AgentSettings.withSystemPrompt(BASE))), tools, p -> Optional.empty(), choices,
                dev.herald.agent.voice.VoiceSettings.defaults(), preferences, personas));
        h.with(b -> b.command(new PersonalityCommand(personas, choices))).start();
    }

    private static Map<String, Personas.Persona> both() {
        Map<String, Personas.Persona> m = new LinkedHashMap<>();
        m.put("pirate", new Personas.Persona("pirate", "Talk like a pirate.", "big"));
        m.put("poet", new Personas.Persona("poet", "Answer in verse.", null));
        return m;
    }

    private List<String> texts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText().replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&amp;", "&")).toList();
    }

    private String say(String text) {
        int before = texts().size();
        fake.userSays(USER, text);
        await().atMost(WAIT).until(() -> texts().size() > before);
        return texts().get(before);
    }

    /** The user asks something; returns the request the model got for it. */
    private RecordedRequest ask(String text) {
        int before = model.requests().size();
        model.enqueue(Reply.text("ok: " + text));
        assertThat(say(text)).isEqualTo("ok: " + text);
        assertThat(model.requests()).hasSize(before + 1);
        return model.lastRequest();
    }

    private static String system(RecordedRequest r) {
        return r.messages().getFirst().role().equals("system") ? r.messages().getFirst().content() : null;
    }

    @Test
    void personality_listChooseApplyRestartAndDefault() {
        startProcess(both());
        assertThat(say("/personality")).isEqualTo("""
                Personalities (this chat uses none):
                \u2022 pirate (model big)
                \u2022 poet
                Choose with /personality <name>; /personality default goes back to none.""");
        RecordedRequest plain = ask("hello");
        assertThat(system(plain)).isEqualTo(BASE);
        assertThat(plain.model()).isEqualTo("small-model");

        assertThat(say("/personality pirate")).isEqualTo("Personality for this chat: pirate (model big). It applies from your next message on.");
        RecordedRequest pirate = ask("where is the treasure");
        assertThat(system(pirate)).isEqualTo(BASE + "\n\nTalk like a pirate.");
        assertThat(pirate.model()).as("the persona's profile").isEqualTo("large-model");
        assertThat(say("/personality").lines().toList()).contains("Personalities (this chat uses pirate):", "\u2713 pirate (model big)");

        h.crash();
        startProcess(both());
        RecordedRequest afterRestart = ask("still a pirate?");
        assertThat(system(afterRestart)).isEqualTo(BASE + "\n\nTalk like a pirate.");
        assertThat(afterRestart.model()).isEqualTo("large-model");

        assertThat(say("/model default")).startsWith("Model for this chat: default");
        RecordedRequest chosenAfter = ask("on the small one");
        assertThat(chosenAfter.model()).as("/model chosen after the persona wins").isEqualTo("small-model");
        assertThat(system(chosenAfter)).isEqualTo(BASE + "\n\nTalk like a pirate.");

        assertThat(say("/personality Poet")).isEqualTo("Personality for this chat: poet. It applies from your next message on.");
        assertThat(system(ask("a rose"))).isEqualTo(BASE + "\n\nAnswer in verse.");

        assertThat(say("/personality captain")).isEqualTo("Unknown personality 'captain'. Choose one of: pirate, poet (or default).");
        assertThat(say("/personality default"))
                .isEqualTo("Personality for this chat: none (the configured instructions alone). It applies from your next message on.");
        assertThat(system(ask("plain again"))).isEqualTo(BASE);
    }

    @Test
    void aPersonaRemovedFromTheConfiguration_fallsBackToNone() {
        startProcess(both());
        assertThat(say("/personality pirate")).startsWith("Personality for this chat: pirate");
        h.stop(dev.herald.core.gateway.StopKind.SHUTDOWN);
        h.nextProcess();
        startProcess(Map.of("poet", new Personas.Persona("poet", "Answer in verse.", null)));

        RecordedRequest r = ask("who am I talking to");
        assertThat(system(r)).isEqualTo(BASE);
        assertThat(r.model()).isEqualTo("small-model");
        assertThat(say("/personality").lines().toList()).contains("Personalities (this chat uses none):");
    }

    @Test
    void withoutPersonalities_theCommandSaysSo() {
        startProcess(Map.of());
        assertThat(say("/personality pirate")).isEqualTo("No personalities are configured here; an admin adds them under personalities: in config.yaml.");
        assertThat(say("/help")).contains("/personality [name] - list the personalities, or choose this chat's");
    }
}
