package dev.herald.agent.demo;

import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelException;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.agent.model.Usage;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.transcript.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * A built-in model that needs no network, for {@code herald run --demo} and for when no model is
 * configured. Every reply starts with {@value #LABEL}, echoes the last user message and says how to
 * configure a real model; the same request always gives the same reply, streamed in the same chunks,
 * with the same usage (about four characters per token). A leading {@code [System note: ...]} (the
 * gateway's recovery notes) is not echoed; the reply says the conversation was resumed instead.
 */
public final class DemoModel implements ModelClient {
    public static final String LABEL = "[demo model] ";
    static final String HOW_TO = "No real model is configured, so this reply is an echo. To talk to a real model, set "
            + "model.base_url and model.name in config.yaml.";
    private static final String NOTE_PREFIX = "[System note:";
    private static final int ECHO_LIMIT = 200;
    private static final int WORDS_PER_CHUNK = 4;

    @Override
    public ModelResponse complete(ModelRequest request, StreamObserver observer, Interrupt interrupt) throws ModelException {
        String reply = replyTo(lastUserText(request.messages()));
        if (request.stream()) {
            for (String chunk : chunks(reply)) {
                if (interrupt != null && interrupt.isRaised()) {
                    throw ModelException.interrupted(interrupt.reason());
                }
                observer.onContent(chunk);
            }
        }
        return new ModelResponse(reply, "", List.of(), "stop", new Usage(tokens(promptChars(request)), tokens(reply.length())));
    }

    @Override
    public String describe() {
        return "demo model";
    }

    @Override
    public String modelName() {
        return "demo model";
    }

    /** The reply for a user message, note and all. */
    static String replyTo(String userText) {
        String text = userText == null ? "" : userText.strip();
        boolean resumed = false;
        while (text.startsWith(NOTE_PREFIX)) {
            int end = text.indexOf(']');
            resumed = true;
            text = end < 0 ? "" : text.substring(end + 1).strip();
        }
        StringBuilder reply = new StringBuilder(LABEL);
        if (resumed) {
            reply.append("Resumed after an interruption. ");
        }
        if (text.isEmpty()) {
            reply.append(resumed ? "There is no new message to answer. " : "I received an empty message. ");
        } else {
            String echo = text.length() > ECHO_LIMIT ? text.substring(0, ECHO_LIMIT) + "…" : text;
            reply.append("You said: \"").append(echo.replaceAll("\\s+", " ")).append("\". ");
        }
        return reply.append(HOW_TO).toString();
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
}
