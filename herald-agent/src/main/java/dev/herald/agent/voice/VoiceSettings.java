package dev.herald.agent.voice;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import java.time.Duration;

/**
 * {@code voice:} how voice notes are understood. Off until {@code voice.transcription.base_url} names an
 * OpenAI-compatible {@code /v1/audio/transcriptions} endpoint (whisper.cpp's server, faster-whisper/speaches, vLLM,
 * OpenAI): a voice note's audio is sent there, and only there, and the model reads what was said.
 */
public record VoiceSettings(
        @Doc("speech to text for voice notes and audio files: an OpenAI-compatible /v1/audio/transcriptions endpoint")
        Transcription transcription,
        @Doc("text to speech for answers to voice notes: an OpenAI-compatible /v1/audio/speech endpoint")
        Speech speech) implements Validated {

    public VoiceSettings {
        transcription = transcription == null ? Transcription.defaults() : transcription;
        speech = speech == null ? Speech.defaults() : speech;
    }

    /** Every key at its default: no transcription, no speech. */
    public static VoiceSettings defaults() {
        return new VoiceSettings(Transcription.defaults(), Speech.defaults());
    }

    @Override
    public void validate(ConfigChecks check) {
        transcription.validate(check.child("transcription"));
        speech.validate(check.child("speech"));
    }

    /** The text-to-speech endpoint; off while {@code base_url} is not set. */
    public record Speech(
            @Doc("the endpoint's base URL, up to /v1 (http://127.0.0.1:8000/v1); not set = answers are text only")
            String baseUrl,
            @Doc("the endpoint's API key, sent as a bearer token (not needed by most self-hosted servers)")
            @EnvOverride({"HERALD_SPEECH_API_KEY"})
            Secret apiKey,
            @Doc("the model the endpoint should use (tts-1 for OpenAI; the server's model name otherwise, e.g. a Piper or Kokoro voice model)")
            String model,
            @Doc("the voice to speak with (alloy for OpenAI; the server's voice name otherwise)")
            String voice,
            @Doc("the audio format asked for: opus (OGG/Opus, sent as a voice note where the chat has them), mp3 or wav (sent as an audio file)")
            SpeechFormat format,
            @Doc("the most characters of an answer read aloud; a longer answer is cut at a sentence (the text is still sent whole)")
            int maxCharacters,
            @Doc("seconds one synthesis may take before it is tried again (three attempts in all)")
            double timeoutSeconds) implements Validated {

        public Speech {
            baseUrl = baseUrl == null || baseUrl.isBlank() ? null : baseUrl.strip().replaceAll("/+$", "");
            apiKey = apiKey == null ? Secret.NONE : apiKey;
            model = model == null || model.isBlank() ? "tts-1" : model.strip();
            voice = voice == null || voice.isBlank() ? "alloy" : voice.strip();
            format = format == null ? SpeechFormat.OPUS : format;
        }

        public static Speech defaults() {
            return new Speech(null, Secret.NONE, "tts-1", "alloy", SpeechFormat.OPUS, 1500, 60);
        }

        /** True when answers to voice notes are spoken too. */
        public boolean enabled() {
            return baseUrl != null;
        }

        public Duration timeout() {
            return Duration.ofMillis(Math.round(timeoutSeconds * 1000));
        }

        @Override
        public void validate(ConfigChecks check) {
            check.require(baseUrl == null || baseUrl.matches("(?i)https?://[^\\s/?#]+(/[^\\s?#]*)?"), "base_url",
                    "must be an http:// or https:// URL up to /v1, was " + baseUrl);
            check.require(maxCharacters >= 20 && maxCharacters <= 4096, "max_characters", "must be 20 to 4,096, was " + maxCharacters);
            check.require(Double.isFinite(timeoutSeconds) && timeoutSeconds >= 1 && timeoutSeconds <= 600, "timeout_seconds",
                    "must be 1 to 600 seconds, was " + ConfigChecks.number(timeoutSeconds));
        }
    }

    /** The audio an answer is spoken as. */
    public enum SpeechFormat {
        /** OGG/Opus: a native voice note on Telegram and WhatsApp. */
        OPUS("opus", "audio/ogg", ".ogg"),
        MP3("mp3", "audio/mpeg", ".mp3"),
        WAV("wav", "audio/wav", ".wav");

        private final String wire;
        private final String mimeType;
        private final String extension;

        SpeechFormat(String wire, String mimeType, String extension) {
            this.wire = wire;
            this.mimeType = mimeType;
            this.extension = extension;
        }

        /** The endpoint's {@code response_format}. */
        public String wire() {
            return wire;
        }

        public String mimeType() {
            return mimeType;
        }

        public String extension() {
            return extension;
        }
    }

    /** The largest audio file sent by default: OpenAI's limit for one transcription. */
    public static final long DEFAULT_MAX_BYTES = 25L * 1024 * 1024;

    /** The speech-to-text endpoint; off while {@code base_url} is not set. */
    public record Transcription(
            @Doc("the endpoint's base URL, up to /v1 (http://127.0.0.1:8000/v1); not set = voice notes are not transcribed, "
                    + "and a voice note gets one sentence saying so")
            String baseUrl,
            @Doc("the endpoint's API key, sent as a bearer token (not needed by most self-hosted servers)")
            @EnvOverride({"HERALD_TRANSCRIPTION_API_KEY"})
            Secret apiKey,
            @Doc("the model the endpoint should use (whisper-1 for OpenAI; the server's model name otherwise)")
            String model,
            @Doc("the spoken language as an ISO-639-1 code (en, de, ...); not set = the endpoint detects it")
            String language,
            @Doc("what the audio is sent as: original (as the chat sent it: OGG/Opus from Telegram), wav or mp3 (converted "
                    + "with ffmpeg, which must be installed: herald config check says when it is not)")
            AudioFormat format,
            @Doc("seconds one transcription may take before it is tried again (three attempts in all)")
            double timeoutSeconds,
            @Doc("the largest audio file sent, in bytes; a longer voice note is not transcribed and the model says so")
            long maxBytes,
            @Doc("the longest voice note transcribed, in seconds (as measured in the audio: OGG/Opus, WAV, MP3); a longer one is "
                    + "not sent and the model says so")
            double maxSeconds) implements Validated {
        /** The longest voice note transcribed by default: ten minutes. */
        public static final double DEFAULT_MAX_SECONDS = 600;

        /** With the default cap on a voice note's length ({@value #DEFAULT_MAX_SECONDS} s). */
        public Transcription(String baseUrl, Secret apiKey, String model, String language, AudioFormat format, double timeoutSeconds,
                long maxBytes) {
            this(baseUrl, apiKey, model, language, format, timeoutSeconds, maxBytes, DEFAULT_MAX_SECONDS);
        }

        public Transcription {
            baseUrl = baseUrl == null || baseUrl.isBlank() ? null : baseUrl.strip().replaceAll("/+$", "");
            apiKey = apiKey == null ? Secret.NONE : apiKey;
            model = model == null || model.isBlank() ? "whisper-1" : model.strip();
            language = language == null || language.isBlank() ? null : language.strip();
            format = format == null ? AudioFormat.ORIGINAL : format;
        }

        public static Transcription defaults() {
            return new Transcription(null, Secret.NONE, "whisper-1", null, AudioFormat.ORIGINAL, 120, DEFAULT_MAX_BYTES, DEFAULT_MAX_SECONDS);
        }

        /** True when voice notes are transcribed. */
        public boolean enabled() {
            return baseUrl != null;
        }

        public Duration timeout() {
            return Duration.ofMillis(Math.round(timeoutSeconds * 1000));
        }

        @Override
        public void validate(ConfigChecks check) {
            check.require(baseUrl == null || baseUrl.matches("(?i)https?://[^\\s/?#]+(/[^\\s?#]*)?"), "base_url",
                    "must be an http:// or https:// URL up to /v1, was " + baseUrl);
            check.require(language == null || language.matches("[a-z]{2,3}"), "language", "must be an ISO-639-1 code such as en, was " + language);
            check.require(Double.isFinite(timeoutSeconds) && timeoutSeconds >= 1 && timeoutSeconds <= 3600, "timeout_seconds",
                    "must be 1 to 3,600 seconds, was " + ConfigChecks.number(timeoutSeconds));
            check.require(maxBytes >= 1024 && maxBytes <= 1024L * 1024 * 1024, "max_bytes", "must be 1 KiB to 1 GiB, was " + maxBytes);
            check.require(Double.isFinite(maxSeconds) && maxSeconds >= 1 && maxSeconds <= 86_400, "max_seconds",
                    "must be 1 to 86,400 seconds, was " + ConfigChecks.number(maxSeconds));
        }
    }

    /** How audio is sent to the endpoint. */
    public enum AudioFormat {
        /** As the chat sent it. */
        ORIGINAL,
        /** 16 kHz mono WAV, converted with ffmpeg (whisper.cpp's server reads WAV). */
        WAV,
        /** MP3, converted with ffmpeg. */
        MP3
    }
}
