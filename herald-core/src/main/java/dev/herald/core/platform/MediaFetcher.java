package dev.herald.core.platform;

import java.io.IOException;
import java.util.Objects;

/**
 * Fetches the bytes of an attachment its platform delivered, through that platform's own file API (Telegram's
 * {@code getFile}, Slack's authenticated file URLs, Discord's attachment CDN, the web chat's upload store). A platform
 * that can registers one for itself in {@link MediaFetchers} when it is built; the agent asks for images only when the
 * model can see them. A fetcher reaches only its platform's own hosts, never a URL an attachment merely names.
 */
public interface MediaFetcher {

    /**
     * The bytes of {@code ref} (a {@link MessageEvent.MediaRef#ref()} this platform produced), at most {@code maxBytes}.
     *
     * @throws IOException when it cannot be fetched or is larger than {@code maxBytes}; the message names the platform
     *                     and the size, never a token or a signed URL's secret part
     */
    Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException;

    /** The fetched bytes and the media type the platform gave (may be null). */
    record Fetched(byte[] bytes, String mimeType) {
        public Fetched {
            Objects.requireNonNull(bytes, "bytes");
        }
    }
}
