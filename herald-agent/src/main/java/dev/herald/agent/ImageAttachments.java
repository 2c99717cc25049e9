package dev.herald.agent;

import dev.herald.agent.tool.Texts;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ImagePart;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.transcript.Role;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows a vision model the images a conversation's user messages carry as attachments (as data, or for messages stored
 * before that as lines {@code [attachment: photo (image/jpeg), ref ...]}): the newest {@value #MAX_IMAGES} are fetched through their
 * platform's {@link MediaFetcher} and added to their message as image parts; the line stays in the text. An image
 * that cannot be fetched, is over the size limit or is not really an image stays a line only (logged). Fetched
 * images are kept in a small cache (at most {@value #CACHE_BYTES} bytes), so a conversation does not fetch the same
 * photo at every turn. Thread-safe.
 */
final class ImageAttachments {
    private static final Logger log = LoggerFactory.getLogger(ImageAttachments.class);
    static final int MAX_IMAGES = 4;
    static final long CACHE_BYTES = 32L * 1024 * 1024;

    private final Function<String, Optional<MediaFetcher>> fetchers;
    private final long maxBytes;
    private final Map<String, ImagePart> cache = new LinkedHashMap<>(16, 0.75f, true);
    private long cachedBytes;

    ImageAttachments(Function<String, Optional<MediaFetcher>> fetchers, long maxBytes) {
        this.fetchers = fetchers;
        this.maxBytes = maxBytes;
    }

    /** True when {@code ref} names an image (by kind or media type). */
    static boolean isImage(MediaRef ref) {
        String mime = ref.mimeType() == null ? "" : ref.mimeType().toLowerCase(Locale.ROOT);
        return mime.startsWith("image/") || ref.kind().equals("photo") || ref.kind().equals("image");
    }

    /** True when {@code attachments} hold at least one image. */
    static boolean hasImage(List<MediaRef> attachments) {
        return attachments.stream().anyMatch(ImageAttachments::isImage);
    }

    /** The attachments of a message: its own, or for a message stored before they were data, those named in its text. */
    static List<MediaRef> of(ChatMessage m) {
        return m.attachments().isEmpty() ? MessageEvent.attachmentsIn(m.content()) : m.attachments();
    }

    /**
     * The messages with the images of their attachment lines added, newest first up to the limit; messages that
     * already carry images (an API client's) count towards the limit and are left as they are.
     */
    List<ChatMessage> attach(List<ChatMessage> messages, String platformId) {
        List<ChatMessage> out = new ArrayList<>(messages);
        int budget = MAX_IMAGES;
        for (int i = out.size() - 1; i >= 0 && budget > 0; i--) {
            ChatMessage m = out.get(i);
            if (m.role() != Role.USER) {
                continue;
            }
            if (m.hasImages()) {
                budget -= m.images().size();
                continue;
            }
            List<MediaRef> refs = of(m).stream().filter(ImageAttachments::isImage).toList();
            List<ImagePart> images = new ArrayList<>();
            for (MediaRef ref : refs.reversed()) {
                if (budget <= 0) {
                    break;
                }
                fetch(platformId, ref).ifPresent(images::addFirst);
                budget--;
            }
            if (!images.isEmpty()) {
                out.set(i, m.withImages(images));
            }
        }
        return out;
    }

    private Optional<ImagePart> fetch(String platformId, MediaRef ref) {
        String key = platformId + "\n" + ref.ref();
        synchronized (cache) {
            ImagePart hit = cache.get(key);
            if (hit != null) {
                return Optional.of(hit);
            }
        }
        Optional<MediaFetcher> fetcher = fetchers.apply(platformId);
        if (fetcher.isEmpty()) {
            log.info("agent - {} cannot fetch attachments; the image stays a reference for the model", platformId);
            return Optional.empty();
        }
        try {
            MediaFetcher.Fetched fetched = fetcher.get().fetch(ref, maxBytes);
            Optional<String> type = ImagePart.sniff(fetched.bytes());
            if (type.isEmpty()) {
                log.warn("agent - {} attachment ({} bytes, declared {}) is not a PNG, JPEG, GIF or WebP image; the model gets the "
                        + "reference only", platformId, Texts.number(fetched.bytes().length), fetched.mimeType());
                return Optional.empty();
            }
            ImagePart image = ImagePart.of(type.get(), fetched.bytes());
            remember(key, image, fetched.bytes().length);
            return Optional.of(image);
        } catch (IOException | RuntimeException e) {
            log.warn("agent - could not fetch an image from {} ({}); the model gets the reference only", platformId,
                    Texts.line(e.getMessage(), 200));
            return Optional.empty();
        }
    }

    private void remember(String key, ImagePart image, long size) {
        synchronized (cache) {
            if (cache.put(key, image) == null) {
                cachedBytes += size;
            }
            var it = cache.entrySet().iterator();
            while (cachedBytes > CACHE_BYTES && it.hasNext()) {
                cachedBytes -= it.next().getValue().size();
                it.remove();
            }
        }
    }
}
