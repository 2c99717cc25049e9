package dev.herald.agent.compress;

import dev.herald.agent.model.ToolSpec;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.transcript.ToolCall;
import java.util.List;

/**
 * A cheap token estimate: characters / 4 (about right for English and code with common tokenizers; low
 * for some other scripts, which the 80% threshold absorbs), plus 4 tokens of framing per message. It decides
 * only when to compress, never what the server is billed; real counts come from the model's usage data.
 */
public final class TokenEstimate {
    public static final int CHARS_PER_TOKEN = 4;
    public static final int PER_MESSAGE = 4;

    private TokenEstimate() {
    }

    public static long of(ChatMessage message) {
        if (message == null) {
            return 0;
        }
        long chars = length(message.content()) + length(message.toolCallId()) + length(message.name());
        for (ToolCall call : message.toolCalls()) {
            chars += call.id().length() + call.name().length() + call.argumentsJson().length() + 16;
        }
        return PER_MESSAGE + chars / CHARS_PER_TOKEN;
    }

    public static long of(List<ChatMessage> messages) {
        long total = 0;
        for (ChatMessage m : messages) {
            total += of(m);
        }
        return total;
    }

    /** The tools' share of a request: their names, descriptions and schemas. */
    public static long ofTools(List<ToolSpec> specs) {
        long chars = 0;
        for (ToolSpec spec : specs) {
            chars += spec.name().length() + spec.description().length() + spec.parametersJson().length() + 32;
        }
        return chars / CHARS_PER_TOKEN;
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }
}
