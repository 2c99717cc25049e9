package dev.herald.platforms.mattermost;

import dev.herald.core.platform.PlatformState;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where catch-up continues, per channel: the {@code create_at} (the server's epoch ms) of the last post Herald is done
 * with, kept in the store's platform state ({@code since:<channel>}), plus the latest of them all ({@code since}) for
 * channels that have none of their own yet (a DM opened while Herald was away).
 *
 * <p>"Done with" means the gateway accepted it (stored, answered, refused or found to be a duplicate), or Herald ignores
 * it; a post the gateway turned away (stopping, store unavailable) does not move the cursor, so catch-up reads it again.
 * A cursor only moves forward. One writer: the adapter's inbound worker.
 */
final class PostCursor {
    private static final Logger log = LoggerFactory.getLogger(PostCursor.class);
    static final String LATEST = "since";
    static final String CHANNEL = "since:";

    private final PlatformState store;
    private final Map<String, Long> cache = new ConcurrentHashMap<>();
    private volatile long latest;

    private volatile boolean loaded;

    PostCursor(PlatformState store) {
        this.store = store;
    }

    /**
     * Reads the stored cursors, once; called before catch-up, so a store that cannot be read when the adapter is built
     * is read again at the next connection rather than taken for a first start.
     */
    boolean load() {
        if (loaded) {
            return true;
        }
        try {
            store.all(MattermostAdapter.PLATFORM).forEach((k, v) -> {
                if (k.startsWith(CHANNEL)) {
                    parse(v).ifPresent(ms -> cache.merge(k.substring(CHANNEL.length()), ms, Math::max));
                } else if (k.equals(LATEST)) {
                    parse(v).ifPresent(ms -> latest = Math.max(latest, ms));
                }
            });
            loaded = true;
        } catch (RuntimeException e) {
            log.warn("mattermost - the catch-up cursors cannot be read from the store now ({}); catch-up waits for the next connection",
                    e.getClass().getSimpleName());
        }
        return loaded;
    }

    /** Where catch-up of {@code channel} starts: its own cursor, else the latest of all; empty when Herald never read a post. */
    OptionalLong since(String channel) {
        Long own = cache.get(channel);
        if (own != null) {
            return OptionalLong.of(own);
        }
        return latest > 0 ? OptionalLong.of(latest) : OptionalLong.empty();
    }

    /** True once any cursor is stored (Herald has read this server before). */
    boolean started() {
        return latest > 0;
    }

    /** Herald is done with the post of {@code channel} created at {@code createAt}; stored when it moves a cursor forward. */
    void done(String channel, long createAt) {
        if (createAt <= 0 || createAt <= cache.getOrDefault(channel, 0L)) {
            return;
        }
        Map<String, String> values = new HashMap<>();
        values.put(CHANNEL + channel, Long.toString(createAt));
        if (createAt > latest) {
            values.put(LATEST, Long.toString(createAt));
        }
        try {
            store.put(MattermostAdapter.PLATFORM, values);
            cache.put(channel, createAt);
            latest = Math.max(latest, createAt);
        } catch (RuntimeException e) {
            // the post itself is stored (or ignored); a cursor left behind only means catch-up reads it again, deduplicated
            log.debug("mattermost - the catch-up cursor of channel {} was not stored ({})", channel, e.getClass().getSimpleName());
        }
    }

    /** Marks where a first-ever start begins ({@code now}, the server's time as far as Herald knows), so history is not answered. */
    void begin(long now) {
        if (latest > 0) {
            return;
        }
        try {
            store.put(MattermostAdapter.PLATFORM, Map.of(LATEST, Long.toString(now)));
            latest = now;
        } catch (RuntimeException e) {
            log.debug("mattermost - the first catch-up cursor was not stored ({})", e.getClass().getSimpleName());
            latest = now;
        }
    }

    private static OptionalLong parse(String v) {
        try {
            return OptionalLong.of(Long.parseLong(v.strip()));
        } catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}
