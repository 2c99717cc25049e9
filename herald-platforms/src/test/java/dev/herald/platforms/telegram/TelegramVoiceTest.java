package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.voice.AudioFiles;
import dev.herald.agent.voice.VoiceCommand;
import dev.herald.agent.voice.VoiceSettings;
import dev.herald.core.config.Secret;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.testkit.voice.FakeTranscriptionServer;
import dev.herald.testkit.voice.Speech;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Telegram voice note, end to end: real speech (espeak-ng, encoded by opusenc as the OGG/Opus a phone sends) is a
 * voice message in an update; the adapter fetches it from the Bot API's file download (getFile, then the file path), the
 * agent sends it to the transcription endpoint, and the model reads what was said with its length; the answer reaches the
 * chat. The store keeps the voice note as an attachment of the user's message.
 */
class TelegramVoiceTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long USER = 100;

    @TempDir
    Path tmp;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private final FakeModelServer model = FakeModelServer.start();
    private final FakeTranscriptionServer whisper = FakeTranscriptionServer.start().saying("remind me to water the plants");
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "voice-model").withMaxRetries(0));
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    @AfterEach
    void stop() {
        client.close();
        model.close();
        whisper.close();
    }

    private ModelAgent agent(VoiceSettings.Transcription transcription) {
        return agent(new VoiceSettings(transcription, VoiceSettings.Speech.defaults()));
    }

    private ModelAgent agent(VoiceSettings voice) {
        java.util.function.Function<String, Optional<MediaFetcher>> fetchers = p -> p.equals("telegram") && h.current instanceof MediaFetcher f
                ? Optional.of(f) : Optional.empty();
        dev.herald.agent.tool.ToolSettings none = dev.herald.agent.tool.ToolSettings.defaults(tmp.resolve("workspaces")).withTools(java.util.List.of());
        return new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(none, java.util.List.of(), java.util.List.of()), fetchers, voice,
                preferences);
    }

    /** The chats' /voice choices, in the store of the gateway running now. */
    private final ChatPreferences preferences = new ChatPreferences() {
        @Override
        public Optional<String> get(dev.herald.core.session.SessionKey key, String name) {
            return h.storage.chatPreferences().get(key, name);
        }

        @Override
        public void set(dev.herald.core.session.SessionKey key, String name, String value) {
            h.storage.chatPreferences().set(key, name, value);
        }
    };

    private VoiceSettings.Transcription transcription() {
        return new VoiceSettings.Transcription(whisper.baseUrl().toString(), Secret.NONE, "whisper-1", null, VoiceSettings.AudioFormat.ORIGINAL,
                30, VoiceSettings.DEFAULT_MAX_BYTES);
    }

    private void voiceNote(String fileId, byte[] note) {
        fake.hostFile(fileId, note);
        fake.userSays(USER, "", m -> {
            m.remove("text");
            m.putObject("voice").put("file_id", fileId).put("file_unique_id", "u-" + fileId).put("duration", 2)
                    .put("mime_type", "audio/ogg").put("file_size", note.length);
        });
    }

    private java.util.List<String> texts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText()).toList();
    }

    @Test
    void voiceCommand_tts_speaksTypedAnswersToo_off_keepsEvenAnswersToVoiceNotesText_andTheChoiceOutlivesARestart() throws Exception {
        byte[] note = Speech.oggOpus("What time is it?", tmp);
        model.enqueue(Reply.text("Typed, and spoken."));
        model.enqueue(Reply.text("Heard you; text only."));
        try (dev.herald.testkit.voice.FakeSpeechServer tts = dev.herald.testkit.voice.FakeSpeechServer.start(tmp)) {
            VoiceSettings.Speech speech = new VoiceSettings.Speech(tts.baseUrl().toString(), Secret.NONE, "tts-1", "alloy",
                    VoiceSettings.SpeechFormat.OPUS, 1500, 30);
            h.agentOverride(agent(new VoiceSettings(transcription(), speech)));
            h.with(b -> b.command(new VoiceCommand(preferences, true)));
            h.start();

            fake.userSays(USER, "/voice");
            await().atMost(WAIT).until(() -> texts().size() == 1);
            assertThat(texts().getLast()).startsWith("Voice in this chat: on (answers to voice notes are spoken too)");
            fake.userSays(USER, "/voice tts");
            await().atMost(WAIT).until(() -> texts().size() == 2);
            assertThat(texts().getLast()).isEqualTo("Voice in this chat: tts (every answer is spoken too).");

            h.crash();
            h.start();
            fake.userSays(USER, "what is new?");
            await().atMost(WAIT).until(() -> fake.uploads().size() == 1);
            assertThat(texts().getLast()).isEqualTo("Typed, and spoken.");
            assertThat(fake.uploads().getFirst().method()).as("a typed message, answered as a voice note too").isEqualTo("sendVoice");

            fake.userSays(USER, "/voice off");
            await().atMost(WAIT).until(() -> texts().size() == 4);
            assertThat(texts().getLast()).isEqualTo("Voice in this chat: off (answers are text only).");
            voiceNote("AwACAgIAAxkBAAIBoff", note);
            await().atMost(WAIT).until(() -> texts().size() == 5);
            assertThat(texts().getLast()).isEqualTo("Heard you; text only.");
            await().during(java.time.Duration.ofMillis(300)).atMost(WAIT).until(() -> fake.uploads().size() == 1);
            assertThat(tts.requests()).as("nothing synthesized for the text-only answer").hasSize(1);

            fake.userSays(USER, "/voice loud");
            await().atMost(WAIT).until(() -> texts().size() == 6);
            assertThat(texts().getLast()).startsWith("Unknown voice mode 'loud'");
        }
    }

    @Test
    void aVoiceNote_isKeptBeforeTelegramIsAnswered_soItIsHeardEvenAfterTelegramDroppedIt() throws Exception {
        byte[] note = Speech.oggOpus("Remind me to water the plants.", tmp);
        fake.hostFile("AwACAgIAAxkBAAIBkeep", note);
        java.util.Map<String, byte[]> kept = new java.util.concurrent.ConcurrentHashMap<>();
        dev.herald.core.platform.MediaKeeper keeper = (platform, ref) -> {
            try {
                byte[] bytes = ((MediaFetcher) h.current).fetch(ref, 1 << 20).bytes();
                kept.put("kept:" + ref.ref(), bytes);
                fake.dropFile(ref.ref()); // Telegram forgets it before the turn runs
                return Optional.of(new dev.herald.core.platform.MessageEvent.MediaRef(ref.kind(), "kept:" + ref.ref(), ref.mimeType(),
                        ref.name(), bytes.length));
            } catch (java.io.IOException e) {
                return Optional.empty();
            }
        };
        java.util.function.Function<String, Optional<MediaFetcher>> fetchers = p -> Optional.of((ref, max) -> kept.containsKey(ref.ref())
                ? new MediaFetcher.Fetched(kept.get(ref.ref()), ref.mimeType()) : ((MediaFetcher) h.current).fetch(ref, max));
        dev.herald.agent.tool.ToolSettings none = dev.herald.agent.tool.ToolSettings.defaults(tmp.resolve("workspaces")).withTools(java.util.List.of());
        h.agentOverride(new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(none, java.util.List.of(), java.util.List.of()), fetchers,
                new VoiceSettings(transcription(), VoiceSettings.Speech.defaults())));
        h.with(b -> b.mediaKeeper(keeper));
        model.enqueue(Reply.text("Noted: the plants."));
        h.start();

        voiceNote("AwACAgIAAxkBAAIBkeep", note);
        await().atMost(WAIT).until(() -> h.turns(TurnState.DELIVERED).size() == 1);

        assertThat(texts()).containsExactly("Noted: the plants.");
        assertThat(whisper.requests()).singleElement().satisfies(r -> assertThat(r.audio()).as("the kept bytes").isEqualTo(note));
        assertThat(h.turns(TurnState.DELIVERED).getFirst().attachments()).singleElement()
                .satisfies(a -> assertThat(a.ref()).as("the stored message names the kept note").isEqualTo("kept:AwACAgIAAxkBAAIBkeep"));
    }

    @Test
    void voiceCommand_withoutSpeechConfigured_saysWhatIsMissing() {
        h.agentOverride(agent(transcription()));
        h.with(b -> b.command(new VoiceCommand(preferences, false)));
        h.start();

        fake.userSays(USER, "/voice tts");
        await().atMost(WAIT).until(() -> texts().size() == 1);
        assertThat(texts().getFirst()).contains("voice.speech").contains("ask the operator");
        assertThat(model.requests()).as("a command, never a turn").isEmpty();
    }

    @Test
    void voiceNote_isFetchedFromTelegram_transcribed_andAnswered() throws Exception {
        byte[] note = Speech.oggOpus("Remind me to water the plants.", tmp);
        double seconds = AudioFiles.seconds(note).orElseThrow();
        fake.hostFile("AwACAgIAAxkBAAIBvoice", note);
        model.enqueue(Reply.text("I'll remind you to water the plants."));
        h.agentOverride(agent(new VoiceSettings.Transcription(whisper.baseUrl().toString(), Secret.NONE, "whisper-1", null,
                VoiceSettings.AudioFormat.ORIGINAL, 30, VoiceSettings.DEFAULT_MAX_BYTES)));
        h.start();

        fake.userSays(USER, "", m -> {
            m.remove("text");
            m.putObject("voice").put("file_id", "AwACAgIAAxkBAAIBvoice").put("file_unique_id", "AgADvoice")
                    .put("duration", (int) Math.round(seconds)).put("mime_type", "audio/ogg").put("file_size", note.length);
        });
        await().atMost(WAIT).until(() -> h.turns(TurnState.DELIVERED).size() == 1);

        assertThat(fake.calls("sendMessage").getFirst().body().path("text").asText()).isEqualTo("I'll remind you to water the plants.");
        assertThat(whisper.requests()).singleElement().satisfies(r -> {
            assertThat(r.audio()).as("the bytes Telegram holds").isEqualTo(note);
            assertThat(r.fileType()).isEqualTo("audio/ogg");
        });
        assertThat(model.lastRequest().lastUserMessage())
                .isEqualTo("[voice note, " + Math.max(1, Math.round(seconds)) + " s] remind me to water the plants");
        assertThat(h.turns(TurnState.DELIVERED)).singleElement().satisfies(t -> assertThat(t.attachments())
                .singleElement().satisfies(a -> assertThat(a.kind()).isEqualTo("voice")));
    }

    @Test
    void voiceNote_withSpeech_isAnsweredInTextAndAsANativeVoiceNote() throws Exception {
        byte[] note = Speech.oggOpus("What time is it?", tmp);
        fake.hostFile("AwACAgIAAxkBAAIBtts", note);
        model.enqueue(Reply.text("It is **half past nine**."));
        try (dev.herald.testkit.voice.FakeSpeechServer tts = dev.herald.testkit.voice.FakeSpeechServer.start(tmp)) {
            VoiceSettings.Transcription stt = new VoiceSettings.Transcription(whisper.baseUrl().toString(), Secret.NONE, "whisper-1", null,
                    VoiceSettings.AudioFormat.ORIGINAL, 30, VoiceSettings.DEFAULT_MAX_BYTES);
            VoiceSettings.Speech speech = new VoiceSettings.Speech(tts.baseUrl().toString(), Secret.NONE, "tts-1", "alloy",
                    VoiceSettings.SpeechFormat.OPUS, 1500, 30);
            h.agentOverride(agent(new VoiceSettings(stt, speech)));
            h.start();

            fake.userSays(USER, "", m -> {
                m.remove("text");
                m.putObject("voice").put("file_id", "AwACAgIAAxkBAAIBtts").put("file_unique_id", "AgADtts").put("duration", 2)
                        .put("mime_type", "audio/ogg").put("file_size", note.length);
            });
            await().atMost(WAIT).until(() -> h.turns(TurnState.DELIVERED).size() == 1);

            assertThat(fake.calls("sendMessage")).extracting(c -> c.body().path("text").asText()).containsExactly("It is <b>half past nine</b>.");
            assertThat(fake.uploads()).singleElement().satisfies(u -> {
                assertThat(u.method()).as("a native voice note").isEqualTo("sendVoice");
                assertThat(AudioFiles.typeOf(u.bytes())).contains("audio/ogg");
                assertThat(AudioFiles.seconds(u.bytes()).orElseThrow()).isGreaterThan(0.5);
            });
            assertThat(tts.requests()).singleElement().satisfies(b -> assertThat(b).contains("\"input\":\"It is half past nine.\""));
        }
    }

    @Test
    void voiceNote_withoutATranscriptionEndpoint_getsOneClearSentence() throws Exception {
        fake.hostFile("AwACAgIAAxkBAAIBnone", new byte[] {'O', 'g', 'g', 'S'});
        h.agentOverride(agent(VoiceSettings.Transcription.defaults()));
        h.start();

        fake.userSays(USER, "", m -> {
            m.remove("text");
            m.putObject("voice").put("file_id", "AwACAgIAAxkBAAIBnone").put("file_unique_id", "AgADnone").put("duration", 3)
                    .put("mime_type", "audio/ogg").put("file_size", 4);
        });
        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);

        assertThat(fake.calls("sendMessage").getFirst().body().path("text").asText()).contains("voice.transcription")
                .contains("ask the operator");
        assertThat(model.requests()).isEmpty();
    }
}
