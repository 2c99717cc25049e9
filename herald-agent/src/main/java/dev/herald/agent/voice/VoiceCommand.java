package dev.herald.agent.voice;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /voice [on|off|tts]}: shows or sets when this chat's answers are spoken ({@link VoiceMode}). The choice is
 * durable ({@link ChatPreferences}), kept across {@code /new}, and applies from the next answer on. Without
 * {@code voice.speech} nothing is spoken, and the answer says so instead of storing a choice that would do nothing.
 */
public final class VoiceCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(VoiceCommand.class);
    static final String NOT_CONFIGURED = "Spoken answers need voice.speech in Herald's configuration; please ask the operator.";

    private final ChatPreferences preferences;
    private final boolean speechEnabled;

    /** @param speechEnabled whether {@code voice.speech} names an endpoint */
    public VoiceCommand(ChatPreferences preferences, boolean speechEnabled) {
        this.preferences = Objects.requireNonNull(preferences, "preferences");
        this.speechEnabled = speechEnabled;
    }

    @Override
    public String name() {
        return "voice";
    }

    @Override
    public String help() {
        return "/voice [on|off|tts] - spoken answers: to voice notes (on), never (off) or always (tts)";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        if (!speechEnabled) {
            return NOT_CONFIGURED;
        }
        String args = event.commandArgs().strip();
        VoiceMode current = VoiceMode.of(preferences, key);
        if (args.isEmpty()) {
            return "Voice in this chat: " + current.word() + " (" + current.meaning() + "). Change it with /voice on, /voice off or /voice tts.";
        }
        var wanted = VoiceMode.of(args);
        if (wanted.isEmpty()) {
            return "Unknown voice mode '" + (args.length() <= 20 ? args : args.substring(0, 20) + "...")
                    + "'. Use /voice on (answers to voice notes are spoken), /voice off or /voice tts (every answer is spoken).";
        }
        preferences.set(key, VoiceMode.PREFERENCE, wanted.get() == VoiceMode.ON ? null : wanted.get().word());
        log.info("voice - {} chose /voice {}", key, wanted.get().word());
        return "Voice in this chat: " + wanted.get().word() + " (" + wanted.get().meaning() + ").";
    }

    @Override
    public List<String> statusLines(MessageEvent event, SessionKey key, boolean admin) {
        return speechEnabled ? List.of("Voice: " + VoiceMode.of(preferences, key).word()) : List.of();
    }
}
