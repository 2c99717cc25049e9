package dev.herald.platforms.common;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/** A configured base URL: checked once by the settings' validation, then used without a trailing slash. */
public final class BaseUrl {
    private BaseUrl() {
    }

    /** Whether {@code text} is an absolute URL with a host and one of {@code schemes} (compared without case). */
    public static boolean valid(String text, String... schemes) {
        if (text == null || text.isBlank()) {
            return false;
        }
        try {
            URI uri = new URI(text.strip());
            return uri.getHost() != null && uri.getScheme() != null
                    && List.of(schemes).contains(uri.getScheme().toLowerCase(Locale.ROOT));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** {@code text} (a {@link #valid} URL) stripped of spaces and of a trailing slash. */
    public static URI of(String text) {
        String s = text.strip();
        return URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    }
}
