package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.voice.VoiceSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The voice: section as an operator writes it: read into the agent's own record, its mistakes named by key, its keys secret. */
class VoiceConfigTest {
    @TempDir
    Path home;

    @Test
    void voiceSection_isReadIntoTheAgentsRecord() {
        HeraldConfig c = new ConfigFixture(home).config("""
                voice:
                  transcription:
                    base_url: http://127.0.0.1:8000/v1/
                    model: Systran/faster-whisper-small
                    language: de
                    format: wav
                  speech:
                    base_url: https://api.openai.com/v1
                    api_key: sk-speech-1234
                    voice: nova
                    format: mp3
                    max_characters: 800
                """);

        VoiceSettings.Transcription t = c.voice().transcription();
        assertThat(t.enabled()).isTrue();
        assertThat(t.baseUrl()).isEqualTo("http://127.0.0.1:8000/v1");
        assertThat(t.model()).isEqualTo("Systran/faster-whisper-small");
        assertThat(t.language()).isEqualTo("de");
        assertThat(t.format()).isEqualTo(VoiceSettings.AudioFormat.WAV);
        VoiceSettings.Speech s = c.voice().speech();
        assertThat(s.apiKey().reveal()).contains("sk-speech-1234");
        assertThat(s.voice()).isEqualTo("nova");
        assertThat(s.format()).isEqualTo(VoiceSettings.SpeechFormat.MP3);
        assertThat(s.maxCharacters()).isEqualTo(800);
        assertThat(s.model()).as("default").isEqualTo("tts-1");
    }

    @Test
    void noVoiceSection_isOff() {
        HeraldConfig c = new ConfigFixture(home).config("model:\n  name: x\n");

        assertThat(c.voice().transcription().enabled()).isFalse();
        assertThat(c.voice().speech().enabled()).isFalse();
    }

    @Test
    void mistakes_areNamedByTheirKey() {
        assertThat(new ConfigFixture(home).error("voice:\n  transcription:\n    base_url: ftp://example.org/v1\n"))
                .contains("voice.transcription.base_url").contains("http:// or https://");
        assertThat(new ConfigFixture(home).error("voice:\n  transcription:\n    format: flac\n"))
                .contains("voice.transcription.format").contains("original");
        assertThat(new ConfigFixture(home).error("voice:\n  speech:\n    max_characters: 5\n"))
                .contains("voice.speech.max_characters");
    }

    @Test
    void theKeys_areMaskedInThePrintout_andTheEnvironmentOverridesThem() {
        LoadedConfig loaded = new ConfigFixture(home).write("voice:\n  transcription:\n    base_url: http://127.0.0.1:9/v1\n    api_key: sk-file\n")
                .load(Map.of("HERALD_TRANSCRIPTION_API_KEY", "sk-from-env-42"));

        assertThat(loaded.config().voice().transcription().apiKey().reveal()).contains("sk-from-env-42");
        assertThat(loaded.effective()).doesNotContain("sk-from-env-42").doesNotContain("sk-file");
    }
}
