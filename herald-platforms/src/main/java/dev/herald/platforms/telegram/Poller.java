package dev.herald.platforms.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.retry.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.platforms.common.LongPoll;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Telegram's side of the getUpdates loop ({@link LongPoll} runs it): identify with getMe until that
 * worked, long-poll from the offset, and move the offset past the updates the gateway accepted.
 *
 * <p>Acknowledgement: Telegram forgets updates below the {@code offset} of the next getUpdates call, so an
 * update is acknowledged by the poll after the one that returned it, and only once {@code sink.accept}
 * returned for it. An update whose accept threw, or that the gateway rejected while stopping, is not
 * acknowledged: the loop (or the next process) reads it again, and the gateway's durable dedupe drops it
 * if it had been stored.
 *
 * <p>One writer: only the loop's thread calls this class, so the offset needs no lock.
 */
final class Poller implements LongPoll.Source<JsonNode> {
    private static final Logger log = LoggerFactory.getLogger(Poller.class);

    private final Platform platform;
    private final BotApi api;
    private final Normaliser normaliser;
    private final ApprovalButtons buttons;
    private final TelegramSettings.Timing timing;
    private final Clock clock;
    private final LongPoll<JsonNode> loop;
    private boolean identified;
    private long offset;

    Poller(Platform platform, BotApi api, Normaliser normaliser, ApprovalButtons buttons, InboundSink sink, TelegramSettings.Timing timing,
            Clock clock, boolean identified) {
        this.platform = platform;
        this.api = api;
        this.normaliser = normaliser;
        this.buttons = buttons;
        this.timing = timing;
        this.clock = clock;
        this.identified = identified;
        this.loop = new LongPoll<>(platform, this, sink, new Backoff(timing.reconnectFirst(), timing.reconnectMax()),
                timing.idlePollDelay(), identified ? ConnectionState.CONNECTED : ConnectionState.BACKING_OFF, "polling again");
    }

    Poller start() {
        loop.start();
        return this;
    }

    /** Stops polling; an accept in progress is allowed to finish (it is never interrupted). */
    void stop() {
        loop.stop();
    }

    @Override
    public LongPoll.Poll<JsonNode> poll() throws IOException {
        if (!identified) {
            BotApi.Answer me = api.getMe();
            if (!me.ok()) {
                return new LongPoll.Failed<>(me.unauthorized() ? "the bot token was rejected (HTTP " + me.status() + ")" : me.problem(),
                        me.retryAfter());
            }
            normaliser.bot(me.result());
            identified = true;
        }
        BotApi.Answer answer = api.getUpdates(offset, timing.pollWait());
        if (!answer.ok()) {
            return new LongPoll.Failed<>(answer.status() == 409
                    ? answer.problem() + " (another poller or a webhook holds this bot)" : answer.problem(), answer.retryAfter());
        }
        // only updates past the offset, each past the one before it: a repeated or older id is passed over
        List<JsonNode> fresh = new ArrayList<>();
        long next = offset;
        for (JsonNode update : answer.result()) {
            long id = updateId(update);
            if (id >= 0 && id >= next) {
                fresh.add(update);
                next = id + 1;
            }
        }
        return new LongPoll.Batch<>(fresh);
    }

    @Override
    public Optional<MessageEvent> event(JsonNode update) {
        return update.has("callback_query") ? buttons.event(update, clock.instant()) : normaliser.event(update, clock.instant());
    }

    /** Moves the offset past the accepted updates, and answers the button presses among them. */
    @Override
    public void acknowledge(List<JsonNode> updates, int accepted) {
        if (accepted > 0) {
            offset = updateId(updates.get(accepted - 1)) + 1;
        }
        for (JsonNode update : updates.subList(0, accepted)) {
            if (update.has("callback_query")) {
                try {
                    buttons.answer(update);
                } catch (RuntimeException e) {
                    log.warn("{} - button press {} not answered", platform, update.path("update_id").asLong(), e);
                }
            }
        }
    }

    @Override
    public String describe(IOException e) {
        return api.describe(e);
    }

    @Override
    public String notStored(JsonNode update, RuntimeException e) {
        log.warn("{} - update {} could not be stored ({}); not acknowledged, it will be read again",
                platform, update.path("update_id").asLong(), e.toString());
        return "the gateway could not store an update";
    }

    private static long updateId(JsonNode update) {
        return update.path("update_id").asLong(-1);
    }
}
