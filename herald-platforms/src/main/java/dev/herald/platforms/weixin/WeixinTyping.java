package dev.herald.platforms.weixin;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WeChat's typing indicator: {@code getconfig} answers a chat's {@code typing_ticket} (kept for {@link #TICKET_TTL}), then
 * {@code sendtyping} with status 1 shows the indicator and status 2 cancels it. Best-effort: a failure is logged at debug
 * level and never affects the turn; a chat whose getconfig answered no ticket is not asked again for a while.
 */
final class WeixinTyping {
    private static final Logger log = LoggerFactory.getLogger(WeixinTyping.class);
    static final Duration TICKET_TTL = Duration.ofMinutes(10);
    private static final int MAX_CHATS = 10_000;

    private record Ticket(String value, Instant fetched) {
    }

    private final ILinkApi api;
    private final WeixinState state;
    private final Clock clock;
    private final Map<String, Ticket> tickets = new ConcurrentHashMap<>();
    /** Chats whose indicator is on (shown and not yet cancelled). */
    private final Map<String, String> showing = new ConcurrentHashMap<>();

    WeixinTyping(ILinkApi api, WeixinState state, Clock clock) {
        this.api = api;
        this.state = state;
        this.clock = clock;
    }

    /** Shows (refreshes) the indicator in {@code chat}. */
    void show(String chat) {
        try {
            String ticket = ticket(chat);
            if (ticket == null) {
                return;
            }
            ILinkApi.Answer a = api.sendTyping(chat, ticket, true);
            if (a.ok()) {
                showing.put(chat, ticket);
            } else {
                tickets.remove(chat); // an expired ticket: fetch a new one next time
                log.debug("weixin - typing indicator not shown: {}", a.problem());
            }
        } catch (IOException e) {
            log.debug("weixin - typing indicator not shown: {}", api.describe(e));
        }
    }

    /** Cancels the indicator in {@code chat} when this adapter showed it. */
    void stop(String chat) {
        String ticket = showing.remove(chat);
        if (ticket == null) {
            return;
        }
        try {
            api.sendTyping(chat, ticket, false);
        } catch (IOException e) {
            log.debug("weixin - typing indicator not cancelled: {}", api.describe(e));
        }
    }

    private String ticket(String chat) throws IOException {
        Instant now = clock.instant();
        Ticket t = tickets.get(chat);
        if (t != null && t.fetched().plus(TICKET_TTL).isAfter(now)) {
            return t.value();
        }
        ILinkApi.Answer a = api.getConfig(chat, state.contextToken(chat));
        String value = a.ok() && a.body().path("typing_ticket").isTextual() && !a.body().path("typing_ticket").asText().isBlank()
                && a.body().path("typing_ticket").asText().length() <= 4096 ? a.body().path("typing_ticket").asText() : null;
        if (tickets.size() >= MAX_CHATS) {
            tickets.clear();
        }
        tickets.put(chat, new Ticket(value, now));
        if (value == null) {
            log.debug("weixin - getconfig gave no typing_ticket for a chat ({}); no typing indicator there for {} min",
                    a.ok() ? "none in the answer" : a.problem(), TICKET_TTL.toMinutes());
        }
        return value;
    }
}
