package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.HeardVoiceNotes;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.agent.voice.VoiceSettings;
import dev.herald.core.config.Secret;
import dev.herald.core.platform.AudioTypes;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.testkit.voice.FakeSpeechServer;
import dev.herald.testkit.voice.FakeTranscriptionServer;
import dev.herald.testkit.voice.Speech;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A voice note from the web chat on a phone, in Chromium: its fake microphone plays real speech (espeak-ng), the user
 * holds the microphone button and lets go, the page uploads the recording (WebM/Opus from MediaRecorder) and sends it;
 * the agent has it transcribed and the model reads what was said; the answer comes back as text and as a spoken
 * OGG/Opus voice note that the page plays, and under the user's voice note the page shows what was heard.
 */
class WebChatVoiceTest {
    static final Duration STEP = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void holdToRecord_onAPhone_isTranscribed_andTheSpokenAnswerPlays() throws Exception {
        Path wav = dir.resolve("please-water.wav");
        Files.write(wav, Speech.wav("Please water the plants on the balcony.", dir));
        AtomicReference<MediaFetcher> chat = new AtomicReference<>();
        try (FakeModelServer model = FakeModelServer.start();
                OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "voice-model").withMaxRetries(0));
                FakeTranscriptionServer whisper = FakeTranscriptionServer.start().saying("please water the plants on the balcony");
                FakeSpeechServer tts = FakeSpeechServer.start(dir)) {
            model.enqueue(Reply.text("Sure, I will water them."));
            VoiceSettings voice = new VoiceSettings(
                    new VoiceSettings.Transcription(whisper.baseUrl().toString(), Secret.NONE, "whisper-1", "en", VoiceSettings.AudioFormat.ORIGINAL,
                            30, VoiceSettings.DEFAULT_MAX_BYTES),
                    new VoiceSettings.Speech(tts.baseUrl().toString(), Secret.NONE, "tts-1", "alloy", VoiceSettings.SpeechFormat.OPUS, 500, 30));
            ToolSettings none = ToolSettings.defaults(dir.resolve("workspaces")).withTools(List.of());
            java.util.function.Function<String, Optional<MediaFetcher>> fetchers = p -> p.equals("webchat") ? Optional.ofNullable(chat.get())
                    : Optional.empty();
            ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(none, List.of(), List.of()), fetchers, voice);
            try (WebUiFixture fx = WebUiFixture.start(dir.resolve("home"), agent)) {
                chat.set(fx.ui.chat());
                fx.ui.chat().showHeard(new HeardVoiceNotes(dir.resolve("workspaces"))::of);
                Map<String, String> env = new HashMap<>(WebChatBrowserTest.env(fx));
                env.put("HERALD_CHROMIUM_ARGS", "--use-fake-ui-for-media-stream --use-fake-device-for-media-stream "
                        + "--use-file-for-fake-audio-capture=" + wav + " --autoplay-policy=no-user-gesture-required");
                try (BrowserScript page = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/voice.mjs", env)) {
                    page.awaitStep("recorded", STEP);
                    JsonNode heard = page.awaitStep("heard", STEP);
                    assertThat(heard.path("text").asText()).as("under the voice note, what Herald heard")
                            .matches("🎤 (\\d+ s · )?please water the plants on the balcony"); // WebM carries no length Herald reads
                    JsonNode played = page.awaitStep("played", STEP);
                    page.awaitDone(STEP);

                    assertThat(played.path("error").isNull()).as("the spoken answer decodes: " + played).isTrue();
                    assertThat(played.path("duration").asDouble()).isGreaterThan(0.5);
                    assertThat(played.path("currentTime").asDouble()).as("it plays").isGreaterThan(0.0);
                }
                assertThat(whisper.requests()).singleElement().satisfies(r -> {
                    assertThat(AudioTypes.sniff(r.audio())).as("MediaRecorder's recording, as the browser made it").contains("audio/webm");
                    assertThat(r.audio().length).as("about three seconds of Opus").isGreaterThan(4_000);
                });
                assertThat(model.lastRequest().lastUserMessage()).startsWith("[voice note").endsWith("] please water the plants on the balcony");
                assertThat(tts.requests()).singleElement().satisfies(b -> assertThat(b).contains("Sure, I will water them."));
            }
        }
    }
}
