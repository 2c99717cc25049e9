package dev.herald.core.inbound;

import dev.herald.core.auth.Authorizer;
import dev.herald.core.lanes.LaneDriver;
import dev.herald.core.lanes.TurnOptionsLookup;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.StoreException;
import dev.herald.core.session.StoreHealth;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission, the one place that decides whether an inbound event becomes a turn: its ids must name a session,
 * its sender must be authorized (a refused sender may get the authorizer's reply, nothing is stored), slash
 * commands are answered inline, and the event is stored as a RECEIVED turn unless it was stored before (durable
 * dedupe). What the event asks of its turn ({@link MessageEvent#options()}) is kept for the turn's start. The stored
 * turn then waits behind the start-up gate or goes to its session's lane. While the store cannot
 * write (a full disk, an unreachable database), nothing is stored: the event is rejected at once
 * ({@link Admission#REJECTED_UNAVAILABLE}), so its platform keeps it and delivers it again.
 */
public final class Inbound {
    private static final Logger log = LoggerFactory.getLogger(Inbound.class);

    private final SessionKey.KeyPolicy keyPolicy;
    private final Authorizer authorizer;
    private final Outbox outbox;
    private final Commands commands;
    private final Turns turns;
    private final StartupGate gate;
    private final LaneDriver driver;
    private final BooleanSupplier accepting;
    private final PlatformRegistry platforms;
    private final Supplier<StoreHealth> store;
    private final TurnOptionsLookup options;
    private final dev.herald.core.platform.MediaKeeper keeper;

public Inbound(SessionKey.KeyPolicy keyPolicy, Authorizer authorizer, Outbox outbox, Commands commands, Turns turns, StartupGate gate,
            LaneDriver driver, BooleanSupplier accepting, PlatformRegistry platforms, Supplier<StoreHealth> store,
            TurnOptionsLookup options) {
        this(keyPolicy, authorizer, outbox, commands, turns, gate, driver, accepting, platforms, store, options,
                dev.herald.core.platform.MediaKeeper.NONE);
    }

    /** @param keeper keeps the bytes of the attachments it chooses (voice notes) before a message is stored */
    public Inbound(SessionKey.KeyPolicy keyPolicy, Authorizer authorizer, Outbox outbox, Commands commands, Turns turns, StartupGate gate,
            LaneDriver driver, BooleanSupplier accepting, PlatformRegistry platforms, Supplier<StoreHealth> store,
            TurnOptionsLookup options, dev.herald.core.platform.MediaKeeper keeper) {
        this.keeper = java.util.Objects.requireNonNull(keeper, "keeper");
        this.platforms = platforms;
        this.options = options;
        this.store = store;
        this.keyPolicy = keyPolicy;
        this.authorizer = authorizer;
        this.outbox = outbox;
        this.commands = commands;
        this.turns = turns;
        this.gate = gate;
        this.driver = driver;
        this.accepting = accepting;
    }

    /**
     * An event from a platform or a scheduled job: authorized, a command answered, or stored and dispatched. An
     * internal event is refused silently and never interrupts a running turn.
     */
    public Admission accept(MessageEvent event) {
        SessionKey key;
        try {
            key = SessionKey.of(event.source(), keyPolicy);
        } catch (IllegalArgumentException e) {
            // an adapter let through ids that cannot name a session: the message is refused, never retried
            log.warn("{} - message {} refused: its ids cannot name a session ({})", event.source().platform(), event.messageId(),
                    e.getMessage());
            return Admission.REFUSED;
        }
        if (!authorizer.isAuthorized(event.source())) {
            log.info("{} - message from unauthorized user {} in chat {} refused", event.source().platform(),
                    event.source().userId(), event.source().chatId());
            if (!event.internal()) {
                // nobody wrote an internal event (a scheduled job's run): nobody is told, least of all a pairing code
                authorizer.refusalReply(event.source()).ifPresent(reply -> outbox.send(event.source().platform(),
                        event.source().target(), reply, MessageKind.COMMAND_RESPONSE, event.messageId(), event.eventId()));
            }
            return Admission.REFUSED;
        }
        if (event.isCommand() && !event.internal()) {
            commands.handle(event, key);
            return Admission.ANSWERED;
        }
        // an internal event (a scheduled job's run) waits behind the chat's running turn, never interrupts it
        boolean mayInterrupt = !event.internal();
        return admit(key, event, turn -> driver.dispatch(turn, mayInterrupt));
    }

    /** An event that must wait its turn and never interrupts (/queue); already authorized. */
    public Admission enqueue(MessageEvent event) {
        return admit(SessionKey.of(event.source(), keyPolicy), event, turn -> driver.dispatch(turn, false));
    }

    /**
     * An event that steers its chat's running turn (/steer; already authorized): stored as a waiting turn, which the
     * running turn takes before its next model call; with no turn running it simply runs.
     */
    public Admission steer(MessageEvent event) {
        return admit(SessionKey.of(event.source(), keyPolicy), event, turn -> driver.dispatch(turn, dev.herald.core.lanes.BusyPolicy.STEER));
    }

    private Admission admit(SessionKey key, MessageEvent event, java.util.function.Consumer<TurnRecord> dispatch) {
        if (!accepting.getAsBoolean()) {
            return Admission.REJECTED_STOPPING;
        }
        if (!store.get().writable()) {
            log.debug("{} - message {} not taken: the store cannot write ({})", event.source().platform(), event.messageId(),
                    store.get().reason());
            return Admission.REJECTED_UNAVAILABLE;
        }
        if (!event.media().isEmpty() && !event.internal()) {
            event = keeper.keepAll(event); // before the store, so before the platform is answered
        }
        Optional<TurnRecord> turn;
        try {
            turn = turns.receive(key, event);
        } catch (StoreException e) {
            if (!e.outage() || !e.retryable()) {
                throw e;
            }
            log.debug("{} - message {} not taken: {}", event.source().platform(), event.messageId(), e.getMessage());
            return Admission.REJECTED_UNAVAILABLE; // nothing was stored: the platform delivers it again
        }
        if (turn.isEmpty()) {
            log.info("{} - message {} was delivered before; dropped", event.source().platform(), event.messageId());
            return Admission.DUPLICATE;
        }
        if (!accepting.getAsBoolean() && platforms.withdrawnAtStop(event.source().platform())
                && turns.withdraw(turn.get().id(), "the gateway began to stop as the message was stored; its request is answered 503 (retry)")) {
            // the stop began between the check above and the store: the drain's withdrawal may have looked already
            return Admission.REJECTED_STOPPING;
        }
        options.remember(event);
        if (!gate.hold(turn.get())) {
            dispatch.accept(turn.get());
        } else {
            log.info("{} - message for {} held until start-up restore finishes", event.source().platform(), key);
        }
        return Admission.ACCEPTED;
    }
}
