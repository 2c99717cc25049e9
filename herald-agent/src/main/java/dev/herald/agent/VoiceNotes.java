package dev.herald.agent;

import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.voice.AudioFiles;
import dev.herald.agent.voice.Speaker;
import dev.herald.agent.voice.Transcriber;
import dev.herald.agent.voice.VoiceSettings;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.transcript.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Voice notes and audio files, heard before the model reads the message: each one's audio is fetched through its
 * platform's {@link MediaFetcher}, sent to the configured transcription endpoint ({@link Transcriber}), and the model
 * reads {@code [voice note, 12 s] what was said} in place of the attachment.
 *
 * <p>A transcript is kept in the conversation's workspace ({@code inbox/.voice-<id>.txt}, the id a hash of the
 * platform's reference), written before the model is called: a turn resumed after a restart, and every later turn
 * that has the message in its history, reads it there and never sends the audio twice. Only the newest message's audio
 * is transcribed; an older one without a kept transcript stays a reference line.
 *
 * <p>Without {@code voice.transcription} a message that is only voice is answered with {@link #NOT_CONFIGURED} and the
 * model is not asked (it would answer a message it cannot hear); a voice note beside text is a line saying it could
 * not be heard.
 */
final class VoiceNotes {
    private static final Logger log = LoggerFactory.getLogger(VoiceNotes.class);
    /** The answer to a voice-only message when nothing can transcribe it. */
    static final String NOT_CONFIGURED = "I can't listen to voice notes here: they need voice.transcription in Herald's configuration. "
            + "Please ask the operator to set it up, or send your message as text.";

    private final VoiceSettings.Transcription settings;
    private final Transcriber transcriber;
    private final VoiceSettings.Speech speech;
    private final Speaker speaker;
    private final Function<String, Optional<MediaFetcher>> fetchers;
    private final dev.herald.core.session.ChatPreferences preferences;

    VoiceNotes(VoiceSettings voice, Function<String, Optional<MediaFetcher>> fetchers) {
        this(voice, fetchers, dev.herald.core.session.ChatPreferences.inMemory());
    }

    /** @param preferences the chats' {@code /voice} choices ({@link dev.herald.agent.voice.VoiceMode}) */
    VoiceNotes(VoiceSettings voice, Function<String, Optional<MediaFetcher>> fetchers, dev.herald.core.session.ChatPreferences preferences) {
        this.preferences = java.util.Objects.requireNonNull(preferences, "preferences");
        this.settings = voice.transcription();
        this.transcriber = settings.enabled() ? new Transcriber(settings) : null;
        this.speech = voice.speech();
        this.speaker = speech.enabled() ? new Speaker(speech) : null;
        this.fetchers = fetchers;
    }

    /** No transcription, no speech: voice-only messages get {@link #NOT_CONFIGURED}. */
    static VoiceNotes off() {
        return new VoiceNotes(VoiceSettings.defaults(), p -> Optional.empty());
    }

    /**
     * When the user spoke (the turn's message carried a voice note or audio) and {@code voice.speech} is set, the answer
     * is spoken too, unless the chat chose {@code /voice off}; with {@code /voice tts} every answer is. Spoken means its readable part ({@link Speaker#spoken}) synthesized, written into the workspace
     * ({@value #SPOKEN}/), and sent after the text as a file of the reply (a voice note where the chat has them). A
     * failure is logged and the text goes alone.
     */
    void speak(String sessionKey, List<MediaRef> heard, String answer, ToolContext context,
            java.util.function.Consumer<dev.herald.core.platform.OutboundFile> send) throws InterruptedException {
        if (speaker == null || answer == null || answer.isBlank()) {
            return;
        }
        dev.herald.agent.voice.VoiceMode mode = sessionKey == null ? dev.herald.agent.voice.VoiceMode.ON
                : dev.herald.agent.voice.VoiceMode.of(preferences, new dev.herald.core.session.SessionKey(sessionKey));
        boolean spoke = heard.stream().anyMatch(a -> AudioFiles.isAudio(a.kind(), a.mimeType()));
        if (mode == dev.herald.agent.voice.VoiceMode.OFF || (mode == dev.herald.agent.voice.VoiceMode.ON && !spoke)) {
            return;
        }
        String text = Speaker.spoken(answer, speech.maxCharacters());
        if (text.isBlank()) {
            return;
        }
        try {
            long t0 = System.nanoTime();
            byte[] audio = speaker.speak(text);
            Path dir = context.createWorkspace().resolve(SPOKEN);
            if (Files.isSymbolicLink(dir)) {
                throw new IOException(SPOKEN + " in the workspace is a link");
            }
            Files.createDirectories(dir);
            Path file = dir.resolve("answer-" + System.currentTimeMillis() + "-" + Long.toHexString(System.nanoTime() & 0xffffff)
                    + speech.format().extension());
            Files.write(file, audio, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            Path real = file.toRealPath();
            send.accept(new dev.herald.core.platform.OutboundFile(real.toString(), "answer" + speech.format().extension(),
                    speech.format().mimeType(), audio.length, null));
            OptionalDouble seconds = AudioFiles.seconds(audio);
            log.info("voice - the answer is spoken too ({} characters read, {} bytes{}, {} ms)", text.length(), audio.length,
                    seconds.isPresent() ? String.format(Locale.ROOT, ", %.1f s", seconds.getAsDouble()) : "",
                    (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            log.warn("voice - the answer was not spoken ({}); the text goes alone", e.getMessage());
        }
    }

    /** Where spoken answers are written in the workspace. */
    static final String SPOKEN = "spoken";

    boolean enabled() {
        return transcriber != null;
    }

    /** True when {@code text} and {@code attachments} are a message that is only voice, and nothing can transcribe it. */
    boolean cannotHear(String text, List<MediaRef> attachments) {
        return transcriber == null && (text == null || text.isBlank()) && !attachments.isEmpty()
                && attachments.stream().allMatch(a -> AudioFiles.isAudio(a.kind(), a.mimeType()));
    }

    /**
     * The messages with their audio attachments replaced by what was said: {@code newest} (the turn's own message, or -1)
     * is transcribed when no transcript is kept yet, older ones use a kept transcript or a reference line.
     */
    List<ChatMessage> hear(List<ChatMessage> messages, int newest, String platformId, ToolContext context) throws InterruptedException {
        List<ChatMessage> out = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            if (m.role() != Role.USER || m.attachments().stream().noneMatch(a -> AudioFiles.isAudio(a.kind(), a.mimeType()))) {
                out.add(m);
                continue;
            }
            StringBuilder text = new StringBuilder(m.content() == null ? "" : m.content());
            List<MediaRef> rest = new ArrayList<>();
            for (MediaRef ref : m.attachments()) {
                if (!AudioFiles.isAudio(ref.kind(), ref.mimeType())) {
                    rest.add(ref);
                    continue;
                }
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(line(ref, i == newest, platformId, context));
            }
            out.add(new ChatMessage(m.role(), text.toString(), m.toolCalls(), m.toolCallId(), m.name(), m.images(), rest));
        }
        return out;
    }

    private String line(MediaRef ref, boolean transcribeNow, String platformId, ToolContext context) throws InterruptedException {
        String what = "voice".equals(ref.kind()) ? "voice note" : "audio";
        Optional<String> kept = kept(ref, context);
        if (kept.isPresent()) {
            return kept.get();
        }
        if (transcriber == null) {
            return "[" + what + ": not heard, voice.transcription is not configured; tell the user to send text]";
        }
        if (!transcribeNow) {
            return "[" + what + " from earlier, not transcribed]";
        }
        if (ref.size() > settings.maxBytes()) {
            return "[" + what + ": not transcribed, it is " + ref.size() + " bytes, over voice.transcription.max_bytes ("
                    + settings.maxBytes() + "); tell the user to send a shorter one]";
        }
        Optional<MediaFetcher> fetcher = fetchers.apply(platformId);
        if (fetcher.isEmpty()) {
            return "[" + what + ": not transcribed, " + platformId + " does not let Herald fetch it]";
        }
        try {
            MediaFetcher.Fetched audio = fetcher.get().fetch(ref, settings.maxBytes());
            OptionalDouble seconds = AudioFiles.seconds(audio.bytes());
            if (seconds.isPresent() && seconds.getAsDouble() > settings.maxSeconds()) {
                log.info("voice - a {} from {} is {} s long, over voice.transcription.max_seconds ({}); not transcribed", what, platformId,
                        Math.round(seconds.getAsDouble()), dev.herald.core.config.ConfigChecks.number(settings.maxSeconds()));
                return "[" + what + ", " + Math.round(seconds.getAsDouble()) + " s: not transcribed, it is longer than "
                        + dev.herald.core.config.ConfigChecks.number(settings.maxSeconds()) + " s (voice.transcription.max_seconds); tell the user to send a shorter one]";
            }
            byte[] sent = audio.bytes();
            String type = AudioFiles.typeOf(audio.bytes()).orElse(ref.mimeType() != null ? ref.mimeType()
                    : audio.mimeType() != null ? audio.mimeType() : "application/octet-stream");
            String name = fileName(ref, type);
            if (settings.format() != VoiceSettings.AudioFormat.ORIGINAL) {
                sent = AudioFiles.convert(sent, settings.format(), settings.timeout().toMillis());
                String ext = settings.format().name().toLowerCase(Locale.ROOT);
                name = name.replaceAll("\\.[A-Za-z0-9]{1,5}$", "") + "." + ext;
                type = settings.format() == VoiceSettings.AudioFormat.WAV ? "audio/wav" : "audio/mpeg";
            }
            long t0 = System.nanoTime();
            String said = transcriber.transcribe(sent, name, type);
            String line = "[" + what + (seconds.isPresent() ? ", " + Math.max(1, Math.round(seconds.getAsDouble())) + " s" : "") + "] "
                    + (said.isBlank() ? "(nothing could be made out)" : said);
            log.info("voice - a {} from {} transcribed ({} bytes{}, {} characters, {} ms)", what, platformId, sent.length,
                    seconds.isPresent() ? String.format(Locale.ROOT, ", %.1f s", seconds.getAsDouble()) : "", said.length(),
                    (System.nanoTime() - t0) / 1_000_000);
            keep(ref, context, line);
            return line;
        } catch (Transcriber.TranscriptionException e) {
            log.warn("voice - a {} from {} was not transcribed: {}", what, platformId, e.getMessage());
            return "[" + what + ": could not be transcribed (" + e.getMessage() + "); tell the user to try again or send text]";
        } catch (IOException | RuntimeException e) {
            log.warn("voice - a {} from {} was not transcribed: {}", what, platformId, e.getMessage());
            return "[" + what + ": could not be transcribed (" + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + "); tell the user to try again or send text]";
        }
    }

    private static String fileName(MediaRef ref, String type) {
        String name = ref.name() == null ? "" : InboundFiles.sanitise(ref.name());
        if (!name.isEmpty()) {
            return name;
        }
        String ext = type == null ? ".ogg" : switch (type.toLowerCase(Locale.ROOT)) {
            case "audio/mpeg", "audio/mp3" -> ".mp3";
            case "audio/wav", "audio/x-wav", "audio/wave" -> ".wav";
            case "audio/mp4", "audio/m4a", "audio/x-m4a" -> ".m4a";
            case "audio/webm" -> ".webm";
            default -> ".ogg";
        };
        return ("voice".equals(ref.kind()) ? "voice" : "audio") + ext;
    }

    static Path keptFile(MediaRef ref, Path workspace) {
        return workspace.resolve(InboundFiles.INBOX).resolve(".voice-" + InboundFiles.id(ref) + ".txt");
    }

    private static Optional<String> kept(MediaRef ref, ToolContext context) {
        return kept(ref, context.workspace());
    }

    /** The transcript kept for {@code ref} in {@code workspace} ({@code [voice note, 4 s] words}), if there is one. */
    static Optional<String> kept(MediaRef ref, Path workspace) {
        Path f = keptFile(ref, workspace);
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) || Files.size(f) > MAX_KEPT_BYTES) {
                return Optional.empty();
            }
            return Optional.of(Files.readString(f, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The largest kept transcript read back (a voice note of the longest length allowed says far less). */
    private static final long MAX_KEPT_BYTES = 256 * 1024;

    private static void keep(MediaRef ref, ToolContext context, String line) {
        try {
            Path inbox = context.createWorkspace().resolve(InboundFiles.INBOX);
            if (Files.isSymbolicLink(inbox)) {
                return;
            }
            Files.createDirectories(inbox);
            Path f = keptFile(ref, context.workspace());
            Path part = f.resolveSibling(f.getFileName() + ".part");
            Files.writeString(part, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            Files.move(part, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("voice - the transcript could not be kept in the workspace ({}); a resumed turn transcribes again", e.getMessage());
        }
    }

    void close() {
        if (transcriber != null) {
            transcriber.close();
        }
        if (speaker != null) {
            speaker.close();
        }
    }
}
