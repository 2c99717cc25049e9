package dev.herald.core.gateway;

import dev.herald.core.lanes.ActiveTurn;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.Platform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells people that the gateway is stopping (spec E2, E3): every chat with a running turn, in its own
 * thread, and every platform's home channel, each place once. A place is the triple platform, chat,
 * thread, so a home channel in the same chat but outside an active thread gets its own message. After an
 * in-chat /restart only the active chats are told; the requester hears from the restart itself. A handover tells only
 * the chats whose turn it cuts off, when it cuts them off: nothing else is interrupted.
 *
 * <p>The notices go out concurrently, one virtual thread per place, on an executor this class owns for the
 * stop: a slow or hanging platform delays no other place and never the stop's resume marks. {@link Sending#await}
 * waits for them up to a bound; whatever is still sending then is interrupted and logged, not waited for. A
 * failed send is logged and not counted as told.
 */
public final class ShutdownNotices {
    private static final Logger log = LoggerFactory.getLogger(ShutdownNotices.class);

    private final SessionLanes lanes;
    private final PlatformRegistry platforms;
    private final Outbox outbox;

    ShutdownNotices(SessionLanes lanes, PlatformRegistry platforms, Outbox outbox) {
        this.lanes = lanes;
        this.platforms = platforms;
        this.outbox = outbox;
    }

    /** Notices on their way: await them before the adapters close. */
    static final class Sending {
        private final ExecutorService executor;
        private final List<CompletableFuture<Void>> sends;
        private final AtomicInteger told;
        private final int places;

        private Sending(ExecutorService executor, List<CompletableFuture<Void>> sends, AtomicInteger told, int places) {
            this.executor = executor;
            this.sends = sends;
            this.told = told;
            this.places = places;
        }

        /** Waits up to {@code max} for the notices; interrupts those still sending after it. Returns how many places were told. */
        int await(Duration max) {
            try {
                CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(Math.max(0, max.toMillis()), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                log.warn("gateway - {} of {} stop notice(s) still sending after {} ms; they are abandoned",
                        sends.stream().filter(f -> !f.isDone()).count(), places, max.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException e) {
                // each send handles its own failure
            } finally {
                executor.shutdownNow();
            }
            return told.get();
        }
    }

    /** Starts sending the banner to every place and returns at once. A handover tells nobody here ({@link #announceTo}). */
    Sending announce(StopKind kind, boolean requestedInChat) {
        return announce(kind, kind == StopKind.HANDOVER ? List.of() : lanes.activeTurns(), !requestedInChat && kind != StopKind.HANDOVER);
    }

    /** Starts sending the banner to the chats of {@code turns} only (those a handover cuts off) and returns at once. */
    Sending announceTo(List<ActiveTurn> turns, StopKind kind) {
        return announce(kind, turns, false);
    }

    private Sending announce(StopKind kind, List<ActiveTurn> turns, boolean homes) {
        Map<String, Place> places = new LinkedHashMap<>();
        for (ActiveTurn t : turns) {
            places.putIfAbsent(key(t.source().platform(), t.source().target()), new Place(t.source().platform(), t.source().target()));
        }
        if (homes) {
            for (HomeChannel home : platforms.homes()) {
                places.putIfAbsent(key(home.platform(), home.target()), new Place(home.platform(), home.target()));
            }
        }
        ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-stop-notice-", 0).factory());
        AtomicInteger told = new AtomicInteger();
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (Place p : places.values()) {
            sends.add(CompletableFuture.runAsync(() -> tell(p, kind, told), executor));
        }
        return new Sending(executor, sends, told, places.size());
    }

    private record Place(Platform platform, ChatTarget target) {
    }

    private static String key(Platform platform, ChatTarget target) {
        return platform.id() + "\u0000" + target.chatId() + "\u0000" + target.threadId();
    }

    private void tell(Place p, StopKind kind, AtomicInteger told) {
        try {
            if (outbox.send(p.platform(), p.target(), kind.banner(), MessageKind.NOTICE, null, null)) {
                told.incrementAndGet();
                return;
            }
        } catch (RuntimeException e) {
            log.debug("{} - the {} notice failed: {}", p.platform(), kind, e.toString());
        }
        log.info("{} - could not deliver the {} notice to chat {}", p.platform(), kind.name().toLowerCase(java.util.Locale.ROOT),
                p.target().chatId());
    }
}
