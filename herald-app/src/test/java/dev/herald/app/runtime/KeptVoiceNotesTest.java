package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.agent.voice.VoiceSettings;
import dev.herald.core.config.Secret;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.testkit.voice.Speech;
import dev.herald.web.MediaStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Voice notes are kept in Herald's media store while their message is taken: fetched once from the platform, then read
 * from the store by the turn even after the platform dropped them; a note over a cap, a file that is no audio, and a
 * platform that fails are left on the platform without refusing the message.
 */
class KeptVoiceNotesTest {
    static final Platform TELEGRAM = Platform.of("telegram");
    @TempDir
    static Path audioDir;
    static byte[] note;

    @TempDir
    Path home;
    final Map<String, byte[]> onTelegram = new ConcurrentHashMap<>();
    final AtomicInteger downloads = new AtomicInteger();
    final MediaFetchers platforms = new MediaFetchers();

    @BeforeAll
    static void speak() throws Exception {
        note = Speech.oggOpus("Remind me to call the plumber.", audioDir);
    }

    KeptVoiceNotesTest() {
        platforms.register(TELEGRAM, (ref, max) -> {
            downloads.incrementAndGet();
            byte[] b = onTelegram.get(ref.ref());
            if (b == null) {
                throw new IOException("telegram - file " + ref.ref() + " is gone");
            }
            return new MediaFetcher.Fetched(b, "audio/ogg");
        });
    }

    private KeptVoiceNotes keeper(double maxSeconds) {
        return new KeptVoiceNotes(MediaStore.in(home.resolve("media")), platforms, new VoiceSettings.Transcription("http://127.0.0.1:9/v1",
                Secret.NONE, "whisper-1", null, VoiceSettings.AudioFormat.ORIGINAL, 30, VoiceSettings.DEFAULT_MAX_BYTES, maxSeconds));
    }

    @Test
    void aVoiceNote_isFetchedOnce_andTheTurnReadsTheKeptBytes_afterThePlatformDroppedIt() throws Exception {
        onTelegram.put("AwACvoice1", note);
        KeptVoiceNotes keeper = keeper(600);

        MediaRef kept = keeper.keep(TELEGRAM, new MediaRef("voice", "AwACvoice1", "audio/ogg", null, note.length)).orElseThrow();
        onTelegram.clear();
        MediaFetcher.Fetched read = keeper.fetchers("telegram").orElseThrow().fetch(kept, 1 << 20);

        assertThat(kept.ref()).startsWith("kept:upload:");
        assertThat(kept.kind()).isEqualTo("voice");
        assertThat(kept.size()).isEqualTo(note.length);
        assertThat(read.bytes()).isEqualTo(note);
        assertThat(downloads).as("fetched from the platform once, at receipt").hasValue(1);
        try (var files = Files.list(home.resolve("media"))) {
            assertThat(files.toList()).singleElement().satisfies(f -> assertThat(Files.readAllBytes(f)).isEqualTo(note));
        }
        assertThatThrownBy(() -> keeper.fetchers("telegram").orElseThrow().fetch(kept, 10)).hasMessageContaining("over the 10-byte limit");
    }

    @Test
    void overMaxSeconds_notAudio_orAFailingPlatform_leaveTheNoteOnThePlatform() {
        onTelegram.put("AwACvoice2", note);
        onTelegram.put("AgACphoto", new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF});

        assertThat(keeper(1).keep(TELEGRAM, new MediaRef("voice", "AwACvoice2", "audio/ogg", null, note.length))).as("over 1 s").isEmpty();
        assertThat(keeper(600).keep(TELEGRAM, new MediaRef("photo", "AgACphoto", "image/jpeg", null, 3))).as("not audio").isEmpty();
        assertThat(keeper(600).keep(TELEGRAM, new MediaRef("voice", "AwACgone", "audio/ogg", null, 100))).as("the platform fails").isEmpty();
        assertThat(keeper(600).keep(Platform.of("irc"), new MediaRef("voice", "x", "audio/ogg", null, 100))).as("no fetcher").isEmpty();
        assertThat(downloads).as("the photo is never downloaded").hasValue(2);
    }

    @Test
    void keepAll_replacesOnlyTheKeptNote_andOtherRefsStillGoToThePlatform() throws Exception {
        onTelegram.put("AwACvoice3", note);
        onTelegram.put("BQACdoc", "a document".getBytes());
        KeptVoiceNotes keeper = keeper(600);
        MessageEvent event = new MessageEvent("e1", SessionSource.dm(TELEGRAM, "7", "7"), "see attached", "m1", null,
                List.of(new MediaRef("voice", "AwACvoice3", "audio/ogg"), new MediaRef("document", "BQACdoc", "text/plain", "notes.txt", 10)),
                MessageEvent.Origin.USER, Instant.EPOCH);

        MessageEvent stored = keeper.keepAll(event);

        assertThat(stored.media()).extracting(MediaRef::ref).satisfiesExactly(r -> assertThat(r).startsWith("kept:upload:"),
                r -> assertThat(r).isEqualTo("BQACdoc"));
        assertThat(stored.text()).isEqualTo("see attached");
        assertThat(stored.eventId()).isEqualTo("e1");
        assertThat(keeper.fetchers("telegram").orElseThrow().fetch(stored.media().get(1), 100).bytes()).isEqualTo("a document".getBytes());
        assertThat(keeper.fetchers("irc")).isEmpty();
        assertThat(Optional.of(stored.media().getFirst().mimeType())).contains("audio/ogg");
    }
}
