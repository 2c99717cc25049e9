package dev.herald.core.side;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.lanes.BusyPolicy;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.Optional;

/** {@code /busy [queue|steer|interrupt]}: this chat's busy mode ({@link BusyModes}), shown or chosen. */
final class BusyCommand implements CommandExtension {
    private final BusyModes modes;

    BusyCommand(BusyModes modes) {
        this.modes = modes;
    }

    @Override
    public String name() {
        return "busy";
    }

    @Override
    public String help() {
        return "/busy [queue|steer|interrupt] - what a message sent while a turn runs does in this chat";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String arg = event.commandArgs().strip();
        if (arg.isEmpty()) {
            Optional<BusyPolicy> chosen = modes.chosen(key);
            BusyPolicy mode = chosen.orElse(modes.fallback());
            return "Busy mode here: " + mode.code() + (chosen.isPresent() ? " (chosen with /busy)" : " (the gateway's default)")
                    + ". A message sent while a turn runs " + what(mode) + ". Change it with /busy queue, /busy steer or /busy interrupt.";
        }
        Optional<BusyPolicy> mode = BusyModes.parse(arg);
        if (mode.isEmpty()) {
            String shown = arg.length() <= 40 ? arg : arg.substring(0, 40) + "...";
            return "Unknown busy mode \u201c" + shown + "\u201d: use /busy queue, /busy steer or /busy interrupt.";
        }
        modes.choose(key, mode.get());
        return "\u2705 Busy mode: " + mode.get().code() + ". From now on a message sent while a turn runs " + what(mode.get()) + ".";
    }

    private static String what(BusyPolicy mode) {
        return switch (mode) {
            case QUEUE -> "waits and runs after it";
            case STEER -> "joins it: the model reads it after its current step";
            case INTERRUPT -> "stops it and runs instead";
        };
    }
}
