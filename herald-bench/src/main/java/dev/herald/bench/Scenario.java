package dev.herald.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What one benchmark client does per turn. */
enum Scenario {
    /** A new durable session per turn ({@code X-Herald-Session-Id} never seen before), answer in one body. */
    NEW("new", "new conversation"),
    /** No session header: the request carries the whole (one-message) conversation and Herald stores nothing. */
    STATELESS("stateless", "stateless"),
    /** Each client keeps one durable session and sends its next message in it, up to the conversation length. */
    CONTINUING("continuing", "continuing conversation"),
    /** A new durable session per turn, answer streamed ({@code "stream": true}). */
    STREAMING("streaming", "streaming");

    final String option;
    final String label;

    Scenario(String option, String label) {
        this.option = option;
        this.label = label;
    }

    boolean durable() {
        return this != STATELESS;
    }

    boolean streamed() {
        return this == STREAMING;
    }

    /** Parses a comma-separated list of option names, in the order given. */
    static List<Scenario> parse(String csv) {
        List<Scenario> out = new ArrayList<>();
        for (String name : csv.split(",")) {
            String n = name.strip().toLowerCase(Locale.ROOT);
            Scenario match = null;
            for (Scenario s : values()) {
                if (s.option.equals(n)) {
                    match = s;
                }
            }
            if (match == null) {
                throw new IllegalArgumentException("bench - unknown scenario '" + name.strip() + "'; use some of new, stateless, continuing, streaming");
            }
            if (!out.contains(match)) {
                out.add(match);
            }
        }
        return out;
    }
}
