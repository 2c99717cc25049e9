package dev.herald.agent.voice;

import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * When a chat's answers are spoken (with {@code voice.speech} set), as the chat chose with {@code /voice}: stored in
 * the chat's preferences under {@value #PREFERENCE}; a chat that never chose answers voice notes with voice.
 */
public enum VoiceMode {
    /** Answers are text only. */
    OFF("off", "answers are text only"),
    /** An answer to a voice note or an audio file is spoken too; typed messages are answered in text (the default). */
    ON("on", "answers to voice notes are spoken too"),
    /** Every answer is spoken too. */
    TTS("tts", "every answer is spoken too");

    /** The preference's name in {@link ChatPreferences}. */
    public static final String PREFERENCE = "voice";

    private final String word;
    private final String meaning;

    VoiceMode(String word, String meaning) {
        this.word = word;
        this.meaning = meaning;
    }

    /** The word {@code /voice} takes and the store keeps. */
    public String word() {
        return word;
    }

    /** What the mode does, for the chat's answer and /status. */
    public String meaning() {
        return meaning;
    }

    /** The mode named {@code word} (case-insensitive), if it is one. */
    public static Optional<VoiceMode> of(String word) {
        String w = word == null ? "" : word.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(m -> m.word.equals(w)).findFirst();
    }

    /** The mode the chat of {@code key} chose; {@link #ON} when it chose none or a value no longer known. */
    public static VoiceMode of(ChatPreferences preferences, SessionKey key) {
        return preferences.get(key, PREFERENCE).flatMap(VoiceMode::of).orElse(ON);
    }
}
