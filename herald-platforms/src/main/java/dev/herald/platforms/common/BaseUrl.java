package dev.herald.platforms.common;

import java.net.URI;
import java.util.Locale;
import java.util.Set;

/** A configured base URL: the default when none is given, no trailing slash, and one of the schemes the client speaks. */
public final class BaseUrl {
    private BaseUrl() {
    }

    /**
     * {@code uri} (or {@code fallback} when null) without a trailing slash.
     *
     * @param complaint what is wrong when the scheme is not one of {@code schemes}, e.g.
     *                  {@code "slack - api_base must be an http(s) URL"}; the URL is appended
     * @throws IllegalArgumentException when the scheme is not one of {@code schemes}
     */
    public static URI of(URI uri, URI fallback, Set<String> schemes, String complaint) {
        URI base = uri == null ? fallback : uri;
        String s = base.toString();
        base = s.endsWith("/") ? URI.create(s.substring(0, s.length() - 1)) : base;
        String scheme = base.getScheme() == null ? "" : base.getScheme().toLowerCase(Locale.ROOT);
        if (!schemes.contains(scheme)) {
            throw new IllegalArgumentException(complaint + ", was " + base);
        }
        return base;
    }
}
