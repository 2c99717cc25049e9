package dev.herald.core.side;

import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The background tasks a chat started and not yet seen ended: their numbers and first turns, kept as two chat preferences
 * of the asking chat ({@code bg.runs}: {@code <number>:<turn id>} separated by spaces, {@code bg.next}: the next number),
 * so they survive a restart. At most {@link #MAX} at a time. One gateway writes them; its calls are serialized here.
 */
final class BackgroundRuns {
    static final String RUNS = "bg.runs";
    static final String NEXT = "bg.next";
    /** The most tasks a chat has listed at once (their list fits a preference's 200 characters). */
    static final int MAX = 8;

    /** A task: its number in the chat, and the id of its first turn. */
    record Run(int number, long turnId) {
    }

    private final ChatPreferences preferences;

    BackgroundRuns(ChatPreferences preferences) {
        this.preferences = preferences;
    }

    /** The chat's next task number (1, 2, ...), taken. */
    synchronized int take(SessionKey key) {
        int n = preferences.get(key, NEXT).flatMap(BackgroundRuns::number).orElse(1);
        preferences.set(key, NEXT, Integer.toString(n >= 999_999 ? 1 : n + 1));
        return n;
    }

    synchronized List<Run> list(SessionKey key) {
        List<Run> out = new ArrayList<>();
        for (String entry : preferences.get(key, RUNS).orElse("").split(" ")) {
            int colon = entry.indexOf(':');
            if (colon > 0) {
                Optional<Integer> n = number(entry.substring(0, colon));
                try {
                    long turn = Long.parseLong(entry.substring(colon + 1));
                    n.ifPresent(number -> out.add(new Run(number, turn)));
                } catch (NumberFormatException e) {
                    // an entry this version did not write: left out
                }
            }
        }
        return out;
    }

    synchronized void add(SessionKey key, Run run) {
        List<Run> runs = list(key);
        runs.add(run);
        save(key, runs);
    }

    synchronized void remove(SessionKey key, int number) {
        List<Run> runs = list(key);
        if (runs.removeIf(r -> r.number() == number)) {
            save(key, runs);
        }
    }

    private void save(SessionKey key, List<Run> runs) {
        List<String> entries = runs.stream().skip(Math.max(0, runs.size() - MAX)).map(r -> r.number() + ":" + r.turnId()).toList();
        preferences.set(key, RUNS, entries.isEmpty() ? null : String.join(" ", entries));
    }

    private static Optional<Integer> number(String text) {
        try {
            int n = Integer.parseInt(text.strip());
            return n > 0 ? Optional.of(n) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
