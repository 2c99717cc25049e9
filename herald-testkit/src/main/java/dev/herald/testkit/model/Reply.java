package dev.herald.testkit.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One scripted answer of the {@link FakeModelServer}. A {@link Completion} is rendered streamed or not,
 * as the request asks, in a {@link Dialect}; a {@link Failure} is an HTTP error with an OpenAI-shaped
 * body; {@link Raw} is sent exactly as written. Any reply can be delayed, paced, held or cut off; counts
 * are in stream events (one {@code data:} entry each; a completion's content chunks come first, the first
 * one carrying the role).
 */
public sealed interface Reply permits Reply.Completion, Reply.Failure, Reply.Raw {

    /** When and how the reply is sent. {@code holdAfter}/{@code dropAfter} count events; -1 means never. */
    record Pacing(Duration delay, Duration gap, Hold hold, int holdAfter, int dropAfter) {
        public static final Pacing NONE = new Pacing(Duration.ZERO, Duration.ZERO, null, -1, -1);
    }

    /** A tool call the model makes; a null id is sent as {@code call_fake_<n>} (or left out, see {@link Dialect}). */
    record ToolCall(String id, String name, String arguments) {
        public static ToolCall of(String name, String arguments) {
            return new ToolCall(null, name, arguments);
        }
    }

    /** Token counts a completion reports. */
    record Tokens(long prompt, long completion) {
    }

    /** A model answer: content chunks, optional reasoning and tool calls, finish reason, usage (null: counted from the text). */
    record Completion(List<String> chunks, String reasoning, List<ToolCall> toolCalls, String finishReason, Tokens usage,
                      Dialect dialect, Pacing pacing) implements Reply {
        public Completion {
            chunks = List.copyOf(chunks);
            toolCalls = List.copyOf(toolCalls);
        }

        public String content() {
            return String.join("", chunks);
        }

        public Completion withReasoning(String text) {
            return new Completion(chunks, text, toolCalls, finishReason, usage, dialect, pacing);
        }

        public Completion withToolCalls(ToolCall... calls) {
            return new Completion(chunks, reasoning, List.of(calls), finishReason, usage, dialect, pacing);
        }

        public Completion withFinishReason(String reason) {
            return new Completion(chunks, reasoning, toolCalls, reason, usage, dialect, pacing);
        }

        public Completion withUsage(long promptTokens, long completionTokens) {
            return new Completion(chunks, reasoning, toolCalls, finishReason, new Tokens(promptTokens, completionTokens), dialect, pacing);
        }

        /** Renders this reply like the named server, whatever the server's default dialect. */
        public Completion in(Dialect d) {
            return new Completion(chunks, reasoning, toolCalls, finishReason, usage, d, pacing);
        }

        @Override
        public Reply withPacing(Pacing p) {
            return new Completion(chunks, reasoning, toolCalls, finishReason, usage, dialect, p);
        }
    }

    /** An HTTP error: the status, an OpenAI-shaped {@code {"error":{...}}} body and extra headers such as Retry-After. */
    record Failure(int status, String message, String type, String code, Map<String, String> headers, Pacing pacing) implements Reply {
        public Failure {
            headers = Map.copyOf(headers);
        }

        public Failure withHeader(String name, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(name, value);
            return new Failure(status, message, type, code, more, pacing);
        }

        public Failure withCode(String errorCode) {
            return new Failure(status, message, type, errorCode, headers, pacing);
        }

        @Override
        public Reply withPacing(Pacing p) {
            return new Failure(status, message, type, code, headers, p);
        }
    }

    /** Bytes exactly as written: each event is sent as is, then flushed; {@code headers} are added to the response. */
    record Raw(int status, String contentType, Map<String, String> headers, List<String> events, Pacing pacing) implements Reply {
        public Raw {
            headers = Map.copyOf(headers);
            events = List.copyOf(events);
        }

        public Raw(int status, String contentType, List<String> events, Pacing pacing) {
            this(status, contentType, Map.of(), events, pacing);
        }

        /** The same bytes with one more response header (such as {@code Retry-After} on a stream that will break off). */
        public Raw withHeader(String name, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(name, value);
            return new Raw(status, contentType, more, events, pacing);
        }

        @Override
        public Reply withPacing(Pacing p) {
            return new Raw(status, contentType, headers, events, p);
        }
    }

    Pacing pacing();

    Reply withPacing(Pacing pacing);

    /** A text answer; streamed one word per chunk when the request streams. */
    static Completion text(String content) {
        List<String> words = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < content.length(); i++) {
            if (content.charAt(i) == ' ') {
                words.add(content.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < content.length() || words.isEmpty()) {
            words.add(content.substring(start));
        }
        return new Completion(words, null, List.of(), null, null, null, Pacing.NONE);
    }

    /** A text answer streamed in exactly these chunks (joined when the request does not stream). */
    static Completion stream(String... chunks) {
        return new Completion(Arrays.asList(chunks), null, List.of(), null, null, null, Pacing.NONE);
    }

    /** An answer that only calls tools (finish reason {@code tool_calls}); arguments are streamed in pieces. */
    static Completion toolCalls(ToolCall... calls) {
        return new Completion(List.of(), null, List.of(calls), null, null, null, Pacing.NONE);
    }

    /** An HTTP error with an OpenAI-shaped body whose type and code follow the status. */
    static Failure error(int status, String message) {
        String type = switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limit_error";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
        String code = status == 401 ? "invalid_api_key" : null;
        return new Failure(status, message, type, code, Map.of(), Pacing.NONE);
    }

    /** A 404 as OpenAI sends it for an unknown model. */
    static Failure modelNotFound(String model) {
        return error(404, "The model `" + model + "` does not exist or you do not have access to it.").withCode("model_not_found");
    }

    /** A 429 with {@code Retry-After} in whole seconds. */
    static Failure rateLimited(long retryAfterSeconds) {
        return error(429, "Rate limit reached, please try again later.").withHeader("Retry-After", Long.toString(retryAfterSeconds));
    }

    /** A stream of these {@code data:} payloads, then {@code data: [DONE]}. */
    static Raw sse(String... payloads) {
        List<String> events = new ArrayList<>();
        for (String payload : payloads) {
            events.add("data: " + payload + "\n\n");
        }
        events.add("data: [DONE]\n\n");
        return new Raw(200, "text/event-stream", events, Pacing.NONE);
    }

    /** A text/event-stream of exactly these lines (a newline added to each, nothing else). */
    static Raw rawLines(String... lines) {
        return new Raw(200, "text/event-stream", Arrays.stream(lines).map(l -> l + "\n").toList(), Pacing.NONE);
    }

    /** A JSON body with this status, sent whether or not the request streams. */
    static Raw json(int status, String body) {
        return new Raw(status, "application/json", List.of(body), Pacing.NONE);
    }

    /** Waits this long before sending anything. */
    default Reply delayed(Duration delay) {
        Pacing p = pacing();
        return withPacing(new Pacing(Objects.requireNonNull(delay), p.gap(), p.hold(), p.holdAfter(), p.dropAfter()));
    }

    /** Waits this long between stream events. */
    default Reply pacedBy(Duration gap) {
        Pacing p = pacing();
        return withPacing(new Pacing(p.delay(), Objects.requireNonNull(gap), p.hold(), p.holdAfter(), p.dropAfter()));
    }

    /** Sends the first {@code events} stream events, then waits until the hold is released. */
    default Reply heldAfter(int events, Hold hold) {
        Pacing p = pacing();
        return withPacing(new Pacing(p.delay(), p.gap(), Objects.requireNonNull(hold), events, p.dropAfter()));
    }

    /** Sends the first {@code events} stream events, then cuts the connection (0: before any response). */
    default Reply droppedAfter(int events) {
        Pacing p = pacing();
        return withPacing(new Pacing(p.delay(), p.gap(), p.hold(), p.holdAfter(), events));
    }
}
