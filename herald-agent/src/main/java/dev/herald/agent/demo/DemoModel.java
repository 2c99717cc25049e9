package dev.herald.agent.demo;

import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelException;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.agent.model.ToolSpec;
import dev.herald.agent.model.Usage;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A built-in model that needs no network, for {@code herald run --demo} and for when no model is
 * configured. Every reply starts with {@value #LABEL}. It shows what Herald does, on request:
 * <ul>
 *   <li>"list my files": a real {@code list_dir} call on the conversation's folder, then its result;</li>
 *   <li>"write a note": a real {@code write_file} call (inside the conversation's folder);</li>
 *   <li>"run a command": a {@code shell} call, which asks for approval first;</li>
 *   <li>"show formatting": an answer in Markdown (heading, emphasis, list, code, table);</li>
 *   <li>"tell me a story": a longer answer streamed at a visible pace;</li>
 * </ul>
 * anything else is echoed with these suggestions and how to configure a real model. A tool is called only
 * when the turn offers it. The same request always gives the same reply, streamed in the same chunks, with
 * the same usage (about four characters per token); only the story waits between chunks. A leading
 * {@code [System note: ...]} (the gateway's recovery notes) is not echoed; the reply says the conversation
 * was resumed instead, and a resumed turn with nothing new answers the message the cut-off turn was answering (the
 * story is told again, whole), as a real model does.
 */
public final class DemoModel implements ModelClient {
    public static final String LABEL = "[demo model] ";
    static final String HOW_TO = "No real model is configured, so this reply is an echo. To talk to a real model, set "
            + "model.base_url and model.name in config.yaml.";
    static final String TRY = "Try: \"list my files\", \"write a note\", \"run a command\" (asks for approval first), "
            + "\"show formatting\" or \"tell me a story\".";
    static final String NOTE_FILE = "demo-note.md";
    private static final String NOTE_PREFIX = "[System note:";
    private static final String RESUMED = "Resumed after an interruption. ";
    private static final int ECHO_LIMIT = 200;
    private static final int WORDS_PER_CHUNK = 4;
    private static final int RESULT_LINES = 20;
    /** How a tool result that is not the tool's output starts ("Denied: ...", "Error: ...", "[interrupted] ..."). */
    private static final java.util.regex.Pattern NOT_RUN = java.util.regex.Pattern.compile("\\[?(denied|error|interrupted)\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE);
    /** The story's pause between chunks, so streaming can be watched. */
    static final long STORY_CHUNK_MS = 60;

    /** What the demo does for one request: call a tool, or answer (streamed, paced or not). */
    private record Plan(ToolCall call, String reply, long chunkPauseMs) {
        static Plan answer(String reply) {
            return new Plan(null, reply, 0);
        }
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamObserver observer, Interrupt interrupt) throws ModelException {
        Plan plan = plan(request);
        Usage usage = new Usage(tokens(promptChars(request)), tokens(plan.reply().length()));
        if (plan.call() != null) {
            if (request.stream() && !plan.reply().isEmpty()) {
                observer.onContent(plan.reply());
            }
            return new ModelResponse(plan.reply(), "", List.of(plan.call()), "tool_calls", usage);
        }
        if (request.stream()) {
            for (String chunk : chunks(plan.reply())) {
                if (interrupt != null && interrupt.isRaised()) {
                    throw ModelException.interrupted(interrupt.reason());
                }
                observer.onContent(chunk);
                pause(plan.chunkPauseMs(), interrupt);
            }
        }
        return new ModelResponse(plan.reply(), "", List.of(), "stop", usage);
    }

    @Override
    public String describe() {
        return "demo model";
    }

    @Override
    public String modelName() {
        return "demo model";
    }

    private static Plan plan(ModelRequest request) {
        List<ChatMessage> messages = request.messages();
        ChatMessage last = messages.getLast();
        if (last.role() == Role.TOOL) {
            return Plan.answer(afterTool(last));
        }
        String text = stripNotes(lastUserText(messages));
        if (text.isEmpty() && lastUserText(messages).strip().startsWith(NOTE_PREFIX)) {
            // a turn cut off by a restart, resumed with nothing new: answer the message it was answering, as a real model does
            String interrupted = stripNotes(userTextBeforeTheLast(messages));
            if (!interrupted.isEmpty()) {
                Plan again = planFor(request, interrupted, interrupted);
                return new Plan(again.call(), LABEL + RESUMED + again.reply().substring(LABEL.length()), again.chunkPauseMs());
            }
        }
        return planFor(request, text, lastUserText(messages));
    }

    /** The plan for the user's {@code text} (notes stripped); {@code raw} is what an echo answers. */
    private static Plan planFor(ModelRequest request, String text, String raw) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("list") && (lower.contains("file") || lower.contains("folder") || lower.contains("dir"))) {
            return call(request, "list_dir", "{\"path\":\".\"}", "Let me list the files in this conversation's folder.");
        }
        if (lower.contains("write") && (lower.contains("note") || lower.contains("file"))) {
            return call(request, "write_file", "{\"path\":\"" + NOTE_FILE + "\",\"content\":\"# A note from the demo model\\n\\n"
                    + "Written with the write_file tool, in this conversation's own folder.\\n\"}", "I will write a short note.");
        }
        if (lower.contains("run a command") || lower.contains("shell") || lower.contains("run command")) {
            return call(request, "shell", "{\"command\":\"echo Hello from the demo model && ls -la\"}",
                    "I will run a shell command; Herald asks you first.");
        }
        if (lower.contains("format") || lower.contains("markdown")) {
            return Plan.answer(LABEL + FORMATTED);
        }
        if (lower.contains("story") || lower.contains("stream")) {
            return new Plan(null, LABEL + STORY, STORY_CHUNK_MS);
        }
        return Plan.answer(replyTo(raw));
    }

    /** Calls {@code tool} when the turn offers it; otherwise says it is switched off. */
    private static Plan call(ModelRequest request, String tool, String arguments, String preface) {
        boolean offered = request.tools().stream().map(ToolSpec::name).anyMatch(tool::equals);
        if (!offered) {
            return Plan.answer(LABEL + "I would use the `" + tool + "` tool for that, but it is not available here "
                    + "(see agent.tools and agent.platform_tools in config.yaml).");
        }
        return new Plan(new ToolCall("call_demo_" + tool, tool, arguments), LABEL + preface, 0);
    }

    /** The answer after a tool ran (or was refused): what it returned, in a code block. */
    private static String afterTool(ChatMessage result) {
        String tool = result.name() == null ? "the tool" : "`" + result.name() + "`";
        String text = result.content() == null ? "" : result.content().strip();
        if (NOT_RUN.matcher(text).lookingAt()) {
            return LABEL + tool + " did not run: " + firstLine(text) + "\n\nNothing was changed. " + TRY;
        }
        List<String> lines = text.lines().toList();
        String shown = String.join("\n", lines.subList(0, Math.min(RESULT_LINES, lines.size())))
                + (lines.size() > RESULT_LINES ? "\n… (" + (lines.size() - RESULT_LINES) + " more lines)" : "");
        return LABEL + tool + " answered:\n\n```\n" + shown.replace("```", "` ``") + "\n```\n\nThat was a real tool call, "
                + "shown above as one line. A configured model decides by itself when to use tools. " + TRY;
    }

    /** The reply for a user message, note and all. */
    static String replyTo(String userText) {
        String text = userText == null ? "" : userText.strip();
        boolean resumed = text.startsWith(NOTE_PREFIX);
        text = stripNotes(text);
        StringBuilder reply = new StringBuilder(LABEL);
        if (resumed) {
            reply.append(RESUMED);
        }
        if (text.isEmpty()) {
            reply.append(resumed ? "There is no new message to answer. " : "I received an empty message. ");
        } else {
            String echo = text.length() > ECHO_LIMIT ? text.substring(0, ECHO_LIMIT) + "…" : text;
            reply.append("You said: \"").append(echo.replaceAll("\\s+", " ")).append("\". ");
        }
        return reply.append(HOW_TO).append(' ').append(TRY).toString();
    }

    private static String stripNotes(String userText) {
        String text = userText == null ? "" : userText.strip();
        while (text.startsWith(NOTE_PREFIX)) {
            int end = text.indexOf(']');
            text = end < 0 ? "" : text.substring(end + 1).strip();
        }
        return text;
    }

    /** The reply in pieces of a few words each; joined, they are the reply. */
    static List<String> chunks(String reply) {
        List<String> chunks = new ArrayList<>();
        int start = 0;
        int words = 0;
        for (int i = 0; i < reply.length(); i++) {
            if (reply.charAt(i) == ' ' && ++words % WORDS_PER_CHUNK == 0) {
                chunks.add(reply.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < reply.length()) {
            chunks.add(reply.substring(start));
        }
        return chunks;
    }

    private static void pause(long ms, Interrupt interrupt) throws ModelException {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ModelException.interrupted(interrupt != null && interrupt.isRaised() ? interrupt.reason() : "interrupted");
        }
    }

    private static String firstLine(String text) {
        return text.lines().findFirst().orElse("");
    }

    /** The text of the user message before the last one, or empty. */
    private static String userTextBeforeTheLast(List<ChatMessage> messages) {
        boolean seenLast = false;
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).role() == Role.USER) {
                if (seenLast) {
                    return messages.get(i).content() == null ? "" : messages.get(i).content();
                }
                seenLast = true;
            }
        }
        return "";
    }

    private static String lastUserText(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).role() == Role.USER) {
                return messages.get(i).content();
            }
        }
        return "";
    }

    private static long promptChars(ModelRequest request) {
        long chars = 0;
        for (ChatMessage m : request.messages()) {
            chars += m.content() == null ? 0 : m.content().length();
        }
        return chars;
    }

    private static long tokens(long chars) {
        return (chars + 3) / 4;
    }

    static final String FORMATTED = """
            Here is what answers can look like.

            ## Formatting

            **Bold**, *italic*, ~~struck~~ and `inline code`; a [link to the admin page](/admin).

            1. a numbered list
            2. with a second item
               - and a nested bullet

            > A quotation.

            ```python
            def greet(name):
                return f"Hello, {name}!"
            ```

            | Platform | Shown as |
            |---|---|
            | Web chat | HTML |
            | Telegram | Telegram HTML |
            | Discord | Discord Markdown |
            | Slack | mrkdwn |""";

    static final String STORY = """
            Once upon a time, a message left a chat window and went looking for an answer. It was written to a \
            database before anyone read it, so when the server restarted halfway through the reply, nothing was \
            lost: the gateway came back, found the turn marked as cut off, and picked it up where it stopped. \
            The answer arrived a little late, but exactly once. This story was streamed a few words at a time, \
            as a real model's answer is.""";
}
