package dev.herald.web.api;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.transcript.ToolCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Herald's own tool rounds of a stateless turn that ended with calls of the client's tools, kept until the client
 * continues. The client's next request carries the history it knows: its messages, the assistant message calling
 * its tools and their results, but not the rounds in which Herald ran its own tools during that turn (a response
 * holds one message). They are put back in front of that assistant message, found by its first call's id, so the
 * model continues with everything it saw. Kept in memory for {@link #KEEP}, at most {@link #MAX} turns: a
 * continuation after a restart or later than that goes on without them (the model may call those tools again).
 */
final class ToolRounds {
    static final Duration KEEP = Duration.ofMinutes(30);
    static final int MAX = 1_000;

    private record Kept(List<ChatMessage> rounds, long expiresAtNanos) {
    }

    private final Map<String, Kept> byCallId = new LinkedHashMap<>();

    /** Remembers {@code rounds} for the turn whose client calls are {@code calls}; nothing when there were none. */
    synchronized void remember(List<ToolCall> calls, List<ChatMessage> rounds) {
        if (rounds.isEmpty() || calls.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        byCallId.values().removeIf(k -> k.expiresAtNanos() - now < 0);
        while (byCallId.size() >= MAX) {
            byCallId.remove(byCallId.keySet().iterator().next());
        }
        byCallId.put(calls.getFirst().id(), new Kept(List.copyOf(rounds), now + KEEP.toNanos()));
    }

    /** {@code history} with the remembered rounds put back before the assistant messages they preceded. */
    synchronized List<ChatMessage> restore(List<ChatMessage> history) {
        List<ChatMessage> out = new ArrayList<>(history.size());
        long now = System.nanoTime();
        for (ChatMessage m : history) {
            if (m.hasToolCalls()) {
                Kept kept = byCallId.get(m.toolCalls().getFirst().id());
                if (kept != null && kept.expiresAtNanos() - now > 0) {
                    out.addAll(kept.rounds());
                }
            }
            out.add(m);
        }
        return out;
    }
}
