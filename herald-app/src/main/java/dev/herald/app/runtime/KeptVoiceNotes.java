package dev.herald.app.runtime;

import dev.herald.agent.voice.AudioFiles;
import dev.herald.agent.voice.VoiceSettings;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.MediaKeeper;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.platform.Platform;
import dev.herald.web.MediaStore;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Voice notes kept in Herald's media store while their message is taken ({@code voice.transcription} set): the note is
 * fetched from its platform, checked against {@code max_bytes} and {@code max_seconds}, written to
 * {@code $HERALD_HOME/media}, and the stored message names it {@code kept:upload:<id>}; only then is the platform told
 * the message arrived. The turn reads the kept bytes ({@link #fetchers}), so a note the platform dropped meanwhile is
 * still heard, and a turn resumed after a restart reads the same bytes. A note that cannot be fetched or is over a cap
 * stays on the platform (the turn then says why it was not heard); the message is never refused for it.
 */
final class KeptVoiceNotes implements MediaKeeper {
    private static final Logger log = LoggerFactory.getLogger(KeptVoiceNotes.class);
    /** How a kept note's reference starts, before the media store's own {@code upload:<id>}. */
    static final String PREFIX = "kept:";

    private final MediaStore store;
    private final MediaFetchers platforms;
    private final VoiceSettings.Transcription settings;

    KeptVoiceNotes(MediaStore store, MediaFetchers platforms, VoiceSettings.Transcription settings) {
        this.store = Objects.requireNonNull(store, "store");
        this.platforms = Objects.requireNonNull(platforms, "platforms");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public Optional<MediaRef> keep(Platform platform, MediaRef ref) {
        if (!settings.enabled() || !AudioFiles.isAudio(ref.kind(), ref.mimeType()) || ref.ref().startsWith(PREFIX)
                || ref.ref().startsWith(MediaStore.PREFIX) || ref.size() > settings.maxBytes()) {
            return Optional.empty(); // the web chat and the API keep what they receive themselves
        }
        Optional<MediaFetcher> fetcher = platforms.of(platform.id());
        if (fetcher.isEmpty()) {
            return Optional.empty();
        }
        try {
            MediaFetcher.Fetched audio = fetcher.get().fetch(ref, settings.maxBytes());
            OptionalDouble seconds = AudioFiles.seconds(audio.bytes());
            if (seconds.isPresent() && seconds.getAsDouble() > settings.maxSeconds()) {
                log.info("voice - a voice note from {} is {} s long, over voice.transcription.max_seconds; left on the platform", platform,
                        Math.round(seconds.getAsDouble()));
                return Optional.empty();
            }
            String kept = PREFIX + store.put(audio.bytes());
            String type = AudioFiles.typeOf(audio.bytes()).orElse(ref.mimeType() != null ? ref.mimeType() : audio.mimeType());
            log.debug("voice - a voice note from {} kept ({} bytes{})", platform, audio.bytes().length,
                    seconds.isPresent() ? String.format(Locale.ROOT, ", %.1f s", seconds.getAsDouble()) : "");
            return Optional.of(new MediaRef(ref.kind(), kept, type, ref.name(), audio.bytes().length));
        } catch (IOException | RuntimeException e) {
            log.warn("voice - a voice note from {} could not be kept ({}); its turn fetches it from the platform", platform, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The fetcher a turn uses for {@code platformId}'s attachments: kept notes from the media store, everything else from
     * the platform, as before; empty when the platform lets Herald fetch nothing.
     */
    Optional<MediaFetcher> fetchers(String platformId) {
        return platforms.of(platformId).map(platform -> (ref, maxBytes) -> {
            if (!ref.ref().startsWith(PREFIX)) {
                return platform.fetch(ref, maxBytes);
            }
            byte[] bytes = store.get(ref.ref().substring(PREFIX.length()))
                    .orElseThrow(() -> new IOException("voice - the kept voice note is no longer in the media store"));
            if (bytes.length > maxBytes) {
                throw new IOException("voice - the kept voice note is " + bytes.length + " bytes, over the " + maxBytes + "-byte limit");
            }
            return new MediaFetcher.Fetched(bytes, ref.mimeType());
        });
    }
}
