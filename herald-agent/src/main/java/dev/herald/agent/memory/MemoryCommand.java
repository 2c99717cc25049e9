package dev.herald.agent.memory;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /memory}, {@code /memory forget <number>}, {@code /memory approve <number>}, {@code /memory clear}: the sender's
 * own long-term memory, in any chat. The owner is the command's sender ({@link Memories#ownerOf}), so nobody, an admin
 * included, lists or changes another person's facts here (the operator has {@code herald memory export|purge}). Works
 * while {@code agent.memory.enabled} is false too, so a user can always see and delete what was kept.
 */
public final class MemoryCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(MemoryCommand.class);
    static final String USAGE = "Use /memory to list, /memory forget <number>, /memory approve <number> or /memory clear.";

    private final MemoryBook book;

    public MemoryCommand(MemoryBook book) {
        this.book = Objects.requireNonNull(book, "book");
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String help() {
        return "/memory [forget|approve <number>|clear] - what the agent remembers about you, across conversations";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String owner = Memories.ownerOf(event.source());
        if (owner == null) {
            return "Memory is kept per person, and this platform did not say who you are.";
        }
        String[] words = event.commandArgs().strip().split("\\s+", 2);
        String verb = words[0].toLowerCase(Locale.ROOT);
        return switch (verb) {
            case "", "list" -> list(owner);
            case "clear" -> {
                int n = book.clear(owner);
                log.info("memory - {} cleared their memory ({} facts)", owner, n);
                yield n == 0 ? "There was nothing to forget." : "Forgot all " + n + (n == 1 ? " fact." : " facts.");
            }
            case "forget", "approve" -> {
                long number = number(words.length > 1 ? words[1] : "");
                if (number < 0) {
                    yield "Which one? " + USAGE;
                }
                boolean done = verb.equals("forget") ? book.forget(owner, number) : book.approve(owner, number);
                yield done ? (verb.equals("forget") ? "Forgot fact " + number + "." : "Approved fact " + number + "; the agent uses it from now on.")
                        : "You have no " + (verb.equals("approve") ? "pending " : "") + "fact " + number + ". /memory lists yours.";
            }
            default -> "Unknown /memory action '" + (verb.length() <= 20 ? verb : verb.substring(0, 20) + "...") + "'. " + USAGE;
        };
    }

    private String list(String owner) {
        List<Memory> all = book.all(owner);
        String off = book.settings().enabled() ? "" : "\n(Long-term memory is switched off here: the agent neither reads nor adds facts.)";
        if (all.isEmpty()) {
            return "I remember nothing about you across conversations. Ask me to remember something (\"remember that I prefer tea\")." + off;
        }
        StringBuilder out = new StringBuilder("What I remember about you (" + all.size() + " of at most " + book.settings().maxEntries() + "):");
        for (Memory m : all) {
            out.append("\n#").append(m.id()).append(' ').append(m.text()).append(" (").append(MemoryBook.day(m)).append(')');
            if (m.pending()) {
                out.append(" - pending: /memory approve ").append(m.id());
            }
        }
        return out.append('\n').append(USAGE).append(off).toString();
    }

    private static long number(String text) {
        String t = text.strip().replaceFirst("^#", "");
        return t.matches("\\d{1,18}") ? Long.parseLong(t) : -1;
    }
}
