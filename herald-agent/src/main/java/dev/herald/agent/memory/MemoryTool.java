package dev.herald.agent.memory;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import dev.herald.core.memory.Memory;
import java.util.List;
import java.util.Locale;

/**
 * {@code memory}: long-term facts about the user whose turn it is, kept across sessions and chats: remember one, recall
 * them (optionally by words), forget one by number. The user is the turn's ({@link ToolContext#user()}), never an
 * argument, so the model cannot reach another user's memory. Not dangerous: the facts are the user's own, shown to
 * them by {@code /memory}; with {@code agent.memory.approve_new} a new fact waits for the user's
 * {@code /memory approve <number>} instead of an approval question.
 */
public final class MemoryTool implements Tool {
    /** The tool's name, for tool lists in the configuration. */
    public static final String NAME = "memory";
    private static final JsonNode SCHEMA = Args.schema(new String[] {"action"},
            "action", "string", "one of: remember, recall, forget",
            "text", "string", "for remember: the fact, one short sentence (at most 500 characters)",
            "query", "string", "for recall, optional: words the facts must contain; without it every fact is listed",
            "number", "integer", "for forget: the fact's number as recall shows it");

    private final MemoryBook book;

    public MemoryTool(MemoryBook book) {
        this.book = book;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Long-term memory about the user you are talking to, kept across conversations: remember a fact they want kept "
                + "(a preference, a name, a standing instruction), recall facts (optionally matching words), or forget one by its "
                + "number. Remember only what the user asked you to keep or clearly wants kept; never secrets such as passwords. "
                + "The facts are also shown to you at the start of each conversation.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return Danger.NONE;
    }

    @Override
    public String summarize(JsonNode args) {
        String action = action(args);
        return "memory " + action + switch (action) {
            case "remember" -> " " + Texts.line(Args.string(args, "text", ""), 80);
            case "recall" -> " " + Texts.line(Args.string(args, "query", ""), 60);
            case "forget" -> " " + Args.number(args, "number", -1);
            default -> "";
        };
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        String owner = context.user();
        if (owner == null) {
            return ToolResult.error("long-term memory belongs to a user, and this conversation has none (a stateless API call)");
        }
        return switch (action(args)) {
            case "remember" -> {
                Memory m = book.remember(owner, Args.string(args, "text"), context.scope());
                yield ToolResult.ok(m.pending()
                        ? "Stored as fact " + m.id() + ", waiting for the user's approval: it is used only after they send /memory approve "
                                + m.id() + ". Tell them so."
                        : "Remembered as fact " + m.id() + ": " + m.text());
            }
            case "recall" -> {
                String query = Args.string(args, "query", "");
                List<Memory> found = book.recall(owner, query);
                if (found.isEmpty()) {
                    yield ToolResult.ok(query.isBlank() ? "You remember nothing about this user yet." : "No remembered fact matches '"
                            + Texts.line(query, 100) + "'.");
                }
                StringBuilder out = new StringBuilder();
                for (Memory m : found) {
                    out.append('#').append(m.id()).append(' ').append(m.text()).append(" (").append(MemoryBook.day(m)).append(")\n");
                }
                yield ToolResult.ok(out.toString().stripTrailing());
            }
            case "forget" -> {
                long number = Args.number(args, "number", -1);
                yield book.forget(owner, number) ? ToolResult.ok("Forgot fact " + number + ".")
                        : ToolResult.error("this user has no fact " + number + "; recall shows their facts with their numbers");
            }
            default -> ToolResult.error("unknown action '" + Texts.line(action(args), 40) + "'; use remember, recall or forget");
        };
    }

    private static String action(JsonNode args) {
        return Args.string(args, "action", "").strip().toLowerCase(Locale.ROOT);
    }
}
