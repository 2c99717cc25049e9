package dev.herald.web.ui;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolState;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The model at the edge of the browser tests: answers stream word by word with a pause between words
 * (so a page can be seen mid-stream); a message mentioning the weather first runs a (pretend) tool; a
 * message mentioning a deploy first asks for approval; a message asking for formatting gets {@link #FORMATTED},
 * an answer holding every Markdown construct (and two attempts at running script in the page); a message
 * mentioning a long task streams slowly enough to be stopped. A stopped answer keeps what was streamed, as
 * the real agent does. Every message is counted by its text.
 */
final class BrowserAgent implements Agent {
    static final long WORD_GAP_MS = 120;
    /** Before the last word of a reply that mentions "slowly", long enough for a page to see the partial text. */
    static final long SLOW_GAP_MS = 2_500;

    static final String FORMATTED = """
            # Release notes

            Herald **2.0** is *out*, with ~~no~~ `fewer` bugs.
            See [the guide](https://docs.herald.invalid/guide) for more.

            1. Install it
            2. Run `herald run`

            > Quoted advice

            ```java
            if (a < b) { System.out.println("hi"); }
            ```

            | Platform | Limit |
            |---|---:|
            | Telegram | 4096 |
            | Discord | 2000 |

            <img src="x" onerror="window.__xss = 1"> [a trap](javascript:window.__xss=2) Plain *end*.""";
    /** How often the long task's answer pauses between words; it is stopped long before it ends. */
    static final long LONG_TASK_GAP_MS = 400;

    final java.util.Map<String, AtomicInteger> seen = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        String message = request.userMessage();
        seen.computeIfAbsent(message, m -> new AtomicInteger()).incrementAndGet();
        String lower = message.toLowerCase(java.util.Locale.ROOT);
        String answer;
        if (lower.contains("weather")) {
            String id = "call_" + calls.incrementAndGet();
            listener.onMessage(ChatMessage.assistant("", List.of(new ToolCall(id, "web_search", "{\"query\":\"weather in Lisbon today\"}"))));
            listener.onToolActivity(id, "web_search", "weather in Lisbon today", ToolState.RUNNING);
            pause(600, interrupt);
            listener.onToolActivity(id, "web_search", "weather in Lisbon today", ToolState.OK);
            listener.onMessage(ChatMessage.tool(id, "web_search", "Lisbon: 21 °C, sunny, light wind from the north-west"));
            answer = "It is 21 °C and sunny in Lisbon right now, with a light north-westerly breeze. A good afternoon for a walk by the river.";
        } else if (lower.contains("deploy")) {
            ApprovalDecision d = listener.requestApproval(new ApprovalRequest("call_d", "shell", "./deploy.sh production", "runs a shell command"));
            answer = d.approved() ? "Deployed: ./deploy.sh production finished." : "Not deployed: " + d.toolResultText();
        } else if (lower.contains("slowly")) {
            answer = "Streaming this answer slowly, word by word.";
        } else if (lower.contains("formatting")) {
            answer = FORMATTED;
        } else if (lower.contains("long task")) {
            answer = "Step one is done. Step two is running. " + "Still working on it. ".repeat(40) + "All done.";
        } else {
            answer = "You said: " + message;
        }
        String[] words = answer.split("(?<= )");
        StringBuilder sent = new StringBuilder();
        for (int i = 0; i < words.length; i++) {
            if (interrupt.isRaised()) {
                if (!sent.isEmpty()) {
                    listener.onMessage(ChatMessage.assistant(sent.toString()));
                }
                return new TurnOutcome.Interrupted(interrupt.reason());
            }
            listener.onDelta(words[i]);
            sent.append(words[i]);
            pause(lower.contains("slowly") && i == words.length - 2 ? SLOW_GAP_MS : lower.contains("long task") ? LONG_TASK_GAP_MS
                    : WORD_GAP_MS, interrupt);
        }
        listener.onMessage(ChatMessage.assistant(answer));
        return new TurnOutcome.Final(answer);
    }

    int count(String message) {
        AtomicInteger n = seen.get(message);
        return n == null ? 0 : n.get();
    }

    @Override
    public String describe() {
        return "browser test agent";
    }

    private static void pause(long ms, Interrupt interrupt) {
        long end = System.currentTimeMillis() + ms;
        while (!interrupt.isRaised() && System.currentTimeMillis() < end) {
            try {
                Thread.sleep(Math.min(20, ms));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
