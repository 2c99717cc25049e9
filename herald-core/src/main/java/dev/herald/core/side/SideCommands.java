package dev.herald.core.side;

import dev.herald.core.agent.Agent;
import dev.herald.core.inbound.Commands;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.util.function.Function;

/**
 * The commands that work beside a running turn: {@code /steer} (joins it), {@code /btw} (a side answer that leaves it
 * alone), {@code /bg} (a task in a session of its own, answered back here) and {@code /busy} (what a message sent while a
 * turn runs does in this chat). The gateway adds them to its commands.
 */
public final class SideCommands {
    private SideCommands() {
    }

    /**
     * What they use of the gateway.
     *
     * @param enqueue stores a message that runs as a turn of its chat, never interrupting (/queue's path)
     * @param steer   stores a message that steers its chat's running turn
     * @param accept  admits an event as a platform's would be (a background task's first message)
     */
    public record Parts(Storage storage, Turns turns, SessionLanes lanes, Outbox outbox, Agent agent, PlatformRegistry platforms,
            Clock clock, BusyModes busyModes, Function<MessageEvent, Admission> enqueue, Function<MessageEvent, Admission> steer,
            Function<MessageEvent, Admission> accept, SessionKey.KeyPolicy keyPolicy) {
    }

    /** Adds {@code /steer}, {@code /btw}, {@code /bg} and {@code /busy} to {@code commands}. */
    public static void addTo(Commands commands, Parts parts) {
        commands.add(new SteerCommand(parts));
        commands.add(new BtwCommand(parts));
        commands.add(new BackgroundCommand(parts));
        commands.add(new BusyCommand(parts.busyModes()));
    }

    /** The answer to a message the gateway did not take as asked. */
    static String notTaken(Admission a) {
        return switch (a) {
            case REJECTED_STOPPING -> "The gateway is stopping; send it again once it is back.";
            case REJECTED_UNAVAILABLE -> dev.herald.core.UserErrors.storeUnavailable();
            case REFUSED -> "Not allowed here.";
            default -> null;
        };
    }
}
