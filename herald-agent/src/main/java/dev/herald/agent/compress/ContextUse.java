package dev.herald.agent.compress;

import dev.herald.agent.model.ToolSpec;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.transcript.Role;
import java.util.List;
import java.util.Locale;

/**
 * How full a chat's next request to the model would be, by what fills it, in estimated tokens ({@link TokenEstimate}) and
 * as a share of the profile's context window ({@code /context}). Images are not counted: the transcript keeps only
 * their attachment lines, which are.
 *
 * @param profile      the model profile's name
 * @param model        the model's own name
 * @param system       the system prompt (the profile's and the persona's)
 * @param tools        the tool definitions offered on the chat's platform
 * @param messages     the transcript's user and assistant messages (tool calls' arguments included)
 * @param toolResults  the tools' results
 * @param attachments  the attachment lines of files the user sent
 * @param messageCount the messages of the transcript the model reads
 * @param window       the context window in tokens ({@code context_tokens})
 * @param trigger      the size at which a turn compresses first ({@code agent.compression_threshold})
 */
public record ContextUse(String profile, String model, long system, long tools, long messages, long toolResults, long attachments,
        int messageCount, int window, long trigger) {

    /** The estimate for {@code history} sent with {@code systemPrompt} (null for none) and {@code specs}. */
    public static ContextUse of(String profile, String model, String systemPrompt, List<ToolSpec> specs, List<ChatMessage> history,
            CompressionSettings settings) {
        long system = systemPrompt == null ? 0 : TokenEstimate.of(ChatMessage.system(systemPrompt));
        long messages = 0;
        long results = 0;
        long attachments = 0;
        for (ChatMessage m : history) {
            if (m.role() == Role.TOOL) {
                results += TokenEstimate.of(m);
                continue;
            }
            messages += TokenEstimate.of(m);
            if (m.role() == Role.USER && !m.attachments().isEmpty()) {
                String content = m.content() == null ? "" : m.content();
                attachments += (MessageEvent.withAttachmentLines(content, m.attachments()).length() - content.length())
                        / TokenEstimate.CHARS_PER_TOKEN;
            }
        }
        return new ContextUse(profile, model, system, TokenEstimate.ofTools(specs), messages, results, attachments, history.size(),
                settings.contextTokens(), settings.triggerTokens());
    }

    /** Every part together. */
    public long total() {
        return system + tools + messages + toolResults + attachments;
    }

    /** What {@code /context} answers. */
    public String describe() {
        StringBuilder sb = new StringBuilder("Context of this chat's next request (model ").append(profile).append(", ").append(model)
                .append("): ~").append(n(total())).append(" of ").append(n(window)).append(" tokens (").append(share(total()))
                .append(")\n");
        line(sb, "System prompt", system);
        line(sb, "Tool definitions", tools);
        line(sb, "Messages (" + n(messageCount) + " in the transcript)", messages);
        line(sb, "Tool results", toolResults);
        line(sb, "Attachments (file lines)", attachments);
        long left = Math.max(0, trigger - total());
        sb.append(left > 0 ? "Compresses by itself at ~" + n(trigger) + " tokens (" + n(left) + " to go); /compress does it now."
                : "Past the compression point (~" + n(trigger) + " tokens): the next turn compresses first; /compress does it now.");
        sb.append("\nEstimates (characters / 4): the model's own count differs, most for scripts other than Latin.");
        return sb.toString();
    }

    private void line(StringBuilder sb, String what, long tokens) {
        sb.append("\u2022 ").append(what).append(": ~").append(n(tokens)).append(" (").append(share(tokens)).append(")\n");
    }

    private String share(long tokens) {
        double percent = window == 0 ? 0 : tokens * 100.0 / window;
        return String.format(Locale.ROOT, percent > 0 && percent < 0.1 ? "<0.1%%" : "%.1f%%", percent);
    }

    private static String n(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }
}
