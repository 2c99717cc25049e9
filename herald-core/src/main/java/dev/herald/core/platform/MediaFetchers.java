package dev.herald.core.platform;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link MediaFetcher} of each platform that can fetch its attachments, registered by the platform when it is
 * built (a plug-in through its {@code PlatformContext}); the agent looks a stored attachment's platform up here.
 */
public final class MediaFetchers {
    private final Map<Platform, MediaFetcher> fetchers = new ConcurrentHashMap<>();

    /** {@code fetcher} fetches the attachments of {@code platform}; a second one for the same platform is refused. */
    public void register(Platform platform, MediaFetcher fetcher) {
        Objects.requireNonNull(fetcher, "fetcher");
        if (fetchers.putIfAbsent(Objects.requireNonNull(platform, "platform"), fetcher) != null) {
            throw new IllegalStateException("media - a fetcher for platform " + platform + " is registered already");
        }
    }

    /** The fetcher of the platform with id {@code platformId}; empty when it has none (or the id is no platform's). */
    public Optional<MediaFetcher> of(String platformId) {
        try {
            return Optional.ofNullable(fetchers.get(Platform.of(platformId)));
        } catch (IllegalArgumentException notAnId) {
            return Optional.empty();
        }
    }
}
