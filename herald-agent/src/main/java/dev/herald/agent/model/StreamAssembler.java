package dev.herald.agent.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Turns the lines of a chat-completions event stream into observer calls and, at the end, one
 * {@link ModelResponse}. Tolerant by design: {@code data:} with or without a space, bare JSON lines,
 * comments and {@code event:} lines ignored, chunks without {@code id}/{@code model}/{@code choices},
 * usage-only chunks, empty {@code choices}, {@code reasoning_content} or {@code reasoning} deltas,
 * a {@code message} in place of {@code delta}, and a payload split over several {@code data:} lines.
 * An unreadable payload is skipped (the caller logs it) when the next one reads on its own.
 */
final class StreamAssembler {

    /** What one line meant. */
    enum Step { CONTINUE, DONE }

    private final StreamObserver observer;
    private final StringBuilder content = new StringBuilder();
    private final StringBuilder reasoning = new StringBuilder();
    private final ToolCallAssembler toolCalls = new ToolCallAssembler();
    private final StringBuilder pending = new StringBuilder();
    private String finishReason;
    private Usage usage;
    private int chunks;
    private int skipped;

    StreamAssembler(StreamObserver observer) {
        this.observer = observer;
    }

    /**
     * Feeds one line of the body.
     *
     * @throws StreamFailure when the server reports an error inside the stream
     */
    Step accept(String line) throws StreamFailure {
        String payload = payloadOf(line);
        if (payload == null) {
            return Step.CONTINUE;
        }
        if (payload.equals("[DONE]")) {
            dropPending();
            return Step.DONE;
        }
        JsonNode chunk = parse(payload);
        if (chunk != null) {
            apply(chunk);
        }
        return Step.CONTINUE;
    }

    /** The answer assembled so far. */
    ModelResponse finish() {
        dropPending();
        return new ModelResponse(content.toString(), reasoning.toString(), toolCalls.calls(), finishReason, usage);
    }

    /** True once any chunk was read. */
    boolean sawChunks() {
        return chunks > 0;
    }

    /** True once a chunk carried a finish reason: the model is done, whatever happens to the rest of the body. */
    boolean finished() {
        return finishReason != null;
    }

    /** Characters of visible answer so far. */
    int contentLength() {
        return content.length();
    }

    int chunks() {
        return chunks;
    }

    /** Payloads that could not be read and were skipped. */
    int skipped() {
        return skipped;
    }

    private static String payloadOf(String line) {
        if (line.startsWith("data:")) {
            String payload = line.substring(5);
            return (payload.startsWith(" ") ? payload.substring(1) : payload).strip();
        }
        String trimmed = line.strip();
        return trimmed.startsWith("{") ? trimmed : null;
    }

    private JsonNode parse(String payload) {
        if (!pending.isEmpty()) {
            JsonNode joined = tryRead(pending + "\n" + payload);
            if (joined != null) {
                pending.setLength(0);
                return joined;
            }
        }
        JsonNode alone = tryRead(payload);
        if (alone != null) {
            dropPending();
            return alone;
        }
        if (!pending.isEmpty()) {
            pending.append('\n');
        }
        pending.append(payload);
        return null;
    }

    private void dropPending() {
        if (!pending.isEmpty()) {
            skipped++;
            pending.setLength(0);
        }
    }

    private static JsonNode tryRead(String text) {
        try {
            JsonNode node = Wire.JSON.readTree(text);
            return node != null && node.isObject() ? node : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private void apply(JsonNode chunk) throws StreamFailure {
        JsonNode error = chunk.get("error");
        if (error != null && !error.isNull()) {
            throw new StreamFailure(Wire.errorDetail(chunk.toString()));
        }
        chunks++;
        Usage reported = Wire.usage(chunk.get("usage"));
        if (reported != null) {
            usage = reported;
        }
        JsonNode choices = chunk.get("choices");
        if (choices == null || !choices.isArray()) {
            return;
        }
        for (JsonNode choice : choices) {
            JsonNode delta = choice.has("delta") ? choice.get("delta") : choice.get("message");
            if (delta != null && delta.isObject()) {
                applyDelta(delta);
            }
            String finish = Wire.text(choice.get("finish_reason"));
            if (finish != null && !finish.isEmpty()) {
                finishReason = finish;
            }
        }
    }

    private void applyDelta(JsonNode delta) {
        String reasoningDelta = Wire.text(delta.get("reasoning_content"));
        if (reasoningDelta == null) {
            reasoningDelta = Wire.text(delta.get("reasoning"));
        }
        if (reasoningDelta != null && !reasoningDelta.isEmpty()) {
            reasoning.append(reasoningDelta);
            observer.onReasoning(reasoningDelta);
        }
        String text = Wire.text(delta.get("content"));
        if (text != null && !text.isEmpty()) {
            content.append(text);
            observer.onContent(text);
        }
        JsonNode calls = delta.get("tool_calls");
        if (calls != null && calls.isArray()) {
            calls.forEach(toolCalls::acceptDelta);
        }
    }

    /** The server put an error object into the stream. */
    static final class StreamFailure extends Exception {
        StreamFailure(String detail) {
            super(detail, null, false, false);
        }
    }
}
