package dev.herald.platforms.irc;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.FirstAttempt;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * IRC as a Herald platform ({@code irc}): one client connection ({@link IrcClient}) for both directions, PRIVMSGs
 * normalised at the edge ({@link IrcMessages}), answers written as plain text ({@link IrcText}).
 *
 * <p>Inbound: the client's loop hands each PRIVMSG to one inbound worker (a single virtual thread), which calls
 * {@link InboundSink#accept} one message at a time in arrival order, so a slow accept never delays a PONG. IRC has no
 * acknowledgement and no history: a line is received once, while connected, or never. A message the store cannot take
 * now ({@link Admission#REJECTED_UNAVAILABLE}) is held by the worker and handed over again with a growing pause (the
 * messages after it wait behind it) until the store takes it or the adapter closes; only a message held at close is
 * lost, and that is logged. After {@link #stopReceiving} (a stop, or another node taking the connection) messages are
 * logged and not taken, while the connection stays up for the replies and notices still to send.
 *
 * <p>Outbound: a part becomes PRIVMSG lines to its chat (a channel, or the nick of a DM), each within the 512-byte line
 * limit in bytes (see {@link IrcClient#textBudget}); in a channel every line starts with the asker's nick (the part's
 * thread). The send returns once the server confirmed it read the lines. IRC has no message ids and no idempotency
 * key, so a part whose confirmation was lost (a crash, a dropped connection) is sent again in full: at least once.
 *
 * <p>Delivery is {@link Capabilities.Delivery#SINGLE_CONNECTION}: one node holds the connection. Unlike an HTTP API, IRC
 * needs the connection to send, so a node standing by fails its sends (retryably) and leaves them to redelivery.
 */
public final class IrcAdapter implements PlatformAdapter {
    private static final Logger log = LoggerFactory.getLogger(IrcAdapter.class);

    public static final Platform PLATFORM = Platform.of("irc");
    /**
     * The most characters of rendered text per reply part: a part is a few lines, sent as one burst, so a reply cut off by a
     * crash repeats at most that much.
     */
    public static final int MAX_TEXT = 1_500;
    private static final Capabilities CAPABILITIES = new Capabilities(true, false, false, false, false, MAX_TEXT)
            .with(new TextFormat("irc-plain", IrcText::length))
            .with(Capabilities.Delivery.SINGLE_CONNECTION);

    private final IrcSettings settings;
    private final IrcSettings.Timing timing;
    private final IrcMessages messages;
    private final IrcClient client;
    private final ExecutorService inbound = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("irc-inbound").factory());
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private volatile InboundSink sink;
    private volatile boolean receiving = true;

    /** An adapter for enabled, validated {@code settings}, paced by {@code timing}. */
    public IrcAdapter(IrcSettings settings, IrcSettings.Timing timing, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.messages = new IrcMessages(settings, clock);
        this.client = new IrcClient(settings, timing, new Events());
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void start(InboundSink inboundSink) throws Exception {
        this.sink = Objects.requireNonNull(inboundSink, "sink");
        receiving = true;
        log.info("irc - connecting ({})", settings);
        client.start();
        Duration wait = timing.connectTimeout().plus(timing.registrationTimeout()).plus(timing.joinWait());
        if (!firstAttempt.await(wait, this::close)) {
            log.warn("irc - not connected after {} ms; still trying in the background", wait.toMillis());
        }
    }

    @Override
    public SendResult send(OutboundMessage message) {
        ChatTarget t = message.target();
        String target = IrcIds.wire(t.chatId());
        String prefix = t.hasThread() ? IrcIds.wire(t.threadId()) + ": " : "";
        String text = IrcText.render(message.text());
        if (message.file() != null) {
            text = text + (text.isEmpty() ? "" : "\n") + "(a file, " + message.file().name() + ", cannot be sent over IRC)";
        }
        List<String> lines;
        try {
            lines = IrcText.lines(text, prefix, client.textBudget(target));
        } catch (IllegalArgumentException e) {
            return SendResult.failed("irc - " + e.getMessage(), false);
        }
        if (lines.isEmpty()) {
            return SendResult.sent(null); // nothing a person could read: blank lines only
        }
        try {
            client.say(target, lines);
            return SendResult.sent(null);
        } catch (IrcClient.NotConnected e) {
            return SendResult.failed("irc - " + e.getMessage() + "; kept for redelivery", true);
        } catch (IOException e) {
            return SendResult.failed("irc - sending to " + target + " failed: " + e.getMessage(), true);
        } catch (IllegalArgumentException e) {
            return SendResult.failed("irc - " + e.getMessage(), false); // a target that is not a name (it comes from the store)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("irc - interrupted while sending to " + target, true);
        }
    }

    /** The operator's settings for single chats ({@code platforms.irc.channels}, as a map): a channel's require_mention. */
    public void useChannels(dev.herald.core.platform.ChannelOverrides overrides) {
        messages.useChannels(overrides);
    }

    /** Stops taking messages but keeps the connection: IRC sends over it, and the stop notices and last replies still go out. */
    @Override
    public void stopReceiving() {
        receiving = false;
    }

    @Override
    public void close() {
        receiving = false;
        client.close();
        inbound.shutdown();
        try {
            if (!inbound.awaitTermination(2, TimeUnit.SECONDS)) {
                inbound.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void handle(IrcClient.Inbound in) {
        IrcMessages.Outcome outcome = messages.normalise(in);
        if (outcome.notice() != null) {
            client.notice(in.line().nick(), outcome.notice());
        }
        if (outcome.event().isEmpty()) {
            return;
        }
        MessageEvent e = outcome.event().get();
        if (!receiving) {
            log.info("irc - a message from {} in {} arrived while this node is not receiving (stopping, or another node holds the "
                    + "connection); not taken", e.source().userName(), e.source().chatId());
            return;
        }
        try {
            Admission a = acceptHolding(e);
            if (a == Admission.REJECTED_STOPPING) {
                log.info("irc - a message from {} in {} arrived while Herald is stopping; not taken (IRC does not deliver it again)",
                        e.source().userName(), e.source().chatId());
            } else if (a != null) {
                log.debug("irc - message from {} in {}: {}", e.source().userName(), e.source().chatId(), a);
            }
        } catch (RuntimeException ex) {
            log.warn("irc - the gateway failed to accept a message from {} in {}", e.source().userName(), e.source().chatId(), ex);
        }
    }

    /** Hands {@code e} to the gateway, again and again while its store cannot write (IRC does not redeliver); null when closed meanwhile. */
    private Admission acceptHolding(MessageEvent e) {
        Backoff wait = null;
        while (true) {
            Admission a;
            try {
                a = sink.accept(e);
            } catch (RuntimeException ex) {
                if (!StoreException.isOutage(ex)) {
                    throw ex;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            if (a != Admission.REJECTED_UNAVAILABLE) {
                if (wait != null) {
                    log.info("irc - the message from {} held while the store could not write is stored now ({} tries)", e.source().userName(),
                            wait.attempts() + 1);
                }
                return a;
            }
            if (wait == null) {
                wait = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5));
                log.info("irc - a message from {} in {} is held: the store cannot write now; it is handed over again until it can",
                        e.source().userName(), e.source().chatId());
            }
            try {
                Thread.sleep(wait.next());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                log.warn("irc - a message from {} in {} was never stored: the store could not write until the adapter closed",
                        e.source().userName(), e.source().chatId());
                return null;
            }
        }
    }

    /** The client's reports, moved onto the inbound worker so they keep their order and never block the connection loop. */
    private final class Events implements IrcClient.Handler {
        @Override
        public void privmsg(IrcClient.Inbound message) {
            submit(() -> handle(message));
        }

        @Override
        public void connection(ConnectionState state, String detail) {
            submit(() -> {
                sink.connectionChanged(PLATFORM, state, detail);
                firstAttempt.reported(state);
            });
        }

        @Override
        public void failed(String message) {
            submit(() -> sink.connectionChanged(PLATFORM, ConnectionState.STOPPED, message));
            firstAttempt.gaveUp(message);
        }

        private void submit(Runnable task) {
            try {
                inbound.execute(task);
            } catch (RejectedExecutionException e) {
                log.debug("irc - event after close ignored");
            }
        }
    }
}
