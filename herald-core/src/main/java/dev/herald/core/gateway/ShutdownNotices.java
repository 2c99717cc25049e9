package dev.herald.core.gateway;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.Platform;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells people that the gateway is stopping (spec E2, E3): every chat with a running turn, in its own
 * thread, and every platform's home channel, each place once. A place is the triple platform, chat,
 * thread, so a home channel in the same chat but outside an active thread gets its own message. A
 * failed send is logged and not counted as told. After an in-chat /restart only the active chats are
 * told; the requester hears from the restart itself.
 */
final class ShutdownNotices {
    private static final Logger log = LoggerFactory.getLogger(ShutdownNotices.class);

    private final SessionLanes lanes;
    private final PlatformRegistry platforms;
    private final Outbox outbox;

    ShutdownNotices(SessionLanes lanes, PlatformRegistry platforms, Outbox outbox) {
        this.lanes = lanes;
        this.platforms = platforms;
        this.outbox = outbox;
    }

    /** Sends the banner; returns how many places were told. */
    int announce(StopKind kind, boolean requestedInChat) {
        Set<String> told = new HashSet<>();
        for (ActiveTurn t : lanes.activeTurns()) {
            tell(t.source().platform(), t.source().target(), kind, told);
        }
        if (!requestedInChat) {
            for (HomeChannel home : platforms.homes()) {
                tell(home.platform(), home.target(), kind, told);
            }
        }
        return told.size();
    }

    private void tell(Platform platform, ChatTarget target, StopKind kind, Set<String> told) {
        String place = platform.id() + "\u0000" + target.chatId() + "\u0000" + target.threadId();
        if (told.contains(place)) {
            return;
        }
        if (outbox.send(platform, target, kind.banner(), MessageKind.NOTICE, null, null)) {
            told.add(place);
        } else {
            log.info("{} - could not deliver the {} notice to chat {}", platform, kind.name().toLowerCase(java.util.Locale.ROOT),
                    target.chatId());
        }
    }
}
