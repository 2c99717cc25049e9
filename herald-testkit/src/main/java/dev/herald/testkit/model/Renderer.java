package dev.herald.testkit.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns a {@link Reply} into what goes on the wire for one request. */
final class Renderer {

    /** The status, content type, extra headers and body pieces of one response. */
    record Rendered(int status, String contentType, Map<String, String> headers, List<String> events, boolean streamed) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RecordedRequest request;
    private final Dialect dialect;
    private final String id;
    private final long created = System.currentTimeMillis() / 1000;

    private Renderer(RecordedRequest request, Dialect dialect, int sequence) {
        this.request = request;
        this.dialect = dialect;
        this.id = "chatcmpl-fake-" + sequence;
    }

    static Rendered render(Reply reply, RecordedRequest request, Dialect serverDialect, int sequence) {
        return switch (reply) {
            case Reply.Raw raw -> new Rendered(raw.status(), raw.contentType(), raw.headers(), raw.events(),
                    !raw.contentType().contains("json"));
            case Reply.Failure failure -> failure(failure);
            case Reply.Completion completion -> {
                Renderer renderer = new Renderer(request, completion.dialect() != null ? completion.dialect() : serverDialect, sequence);
                yield request.stream() ? renderer.streamed(completion) : renderer.whole(completion);
            }
        };
    }

    private static Rendered failure(Reply.Failure failure) {
        ObjectNode error = JSON.createObjectNode();
        error.putObject("error").put("message", failure.message()).put("type", failure.type()).putNull("param")
                .put("code", failure.code());
        return new Rendered(failure.status(), "application/json", failure.headers(), List.of(error.toString()), false);
    }

    private Rendered whole(Reply.Completion c) {
        ObjectNode body = JSON.createObjectNode();
        if (dialect != Dialect.OLLAMA) {
            body.put("id", id);
        }
        body.put("object", "chat.completion").put("created", created).put("model", request.model());
        ObjectNode choice = body.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (c.chunks().isEmpty() && !c.toolCalls().isEmpty()) {
            message.putNull("content");
        } else {
            message.put("content", c.content());
        }
        if (c.reasoning() != null) {
            message.put(reasoningField(), c.reasoning());
        }
        if (!c.toolCalls().isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (int i = 0; i < c.toolCalls().size(); i++) {
                Reply.ToolCall call = c.toolCalls().get(i);
                calls.addObject().put("id", callId(call, i)).put("type", "function").putObject("function")
                        .put("name", call.name()).put("arguments", call.arguments());
            }
        }
        choice.put("finish_reason", finishReason(c));
        body.set("usage", usage(c));
        return new Rendered(200, "application/json", Map.of(), List.of(body.toString()), false);
    }

    private Rendered streamed(Reply.Completion c) {
        List<ObjectNode> deltas = new ArrayList<>();
        if (c.reasoning() != null) {
            for (String piece : Reply.text(c.reasoning()).chunks()) {
                deltas.add(JSON.createObjectNode().put(reasoningField(), piece));
            }
        }
        for (String chunk : c.chunks()) {
            deltas.add(JSON.createObjectNode().put("content", chunk));
        }
        for (int i = 0; i < c.toolCalls().size(); i++) {
            deltas.addAll(toolCallDeltas(c.toolCalls().get(i), i));
        }
        if (deltas.isEmpty()) {
            deltas.add(JSON.createObjectNode().put("content", ""));
        }
        deltas.get(0).put("role", "assistant");
        List<String> events = new ArrayList<>();
        for (ObjectNode delta : deltas) {
            events.add(event(chunk(delta, null)));
        }
        ObjectNode finish = chunk(JSON.createObjectNode(), finishReason(c));
        if (dialect == Dialect.LLAMA_CPP) {
            finish.set("usage", usage(c));
        }
        events.add(event(finish));
        if (dialect == Dialect.OLLAMA) {
            events.add(event(JSON.createObjectNode().set("usage", usage(c))));
        } else if (dialect == Dialect.VLLM || dialect == Dialect.OPENAI && request.includeUsage()) {
            ObjectNode usageChunk = envelope();
            usageChunk.putArray("choices");
            usageChunk.set("usage", usage(c));
            events.add(event(usageChunk));
        }
        events.add("data: [DONE]\n\n");
        return new Rendered(200, "text/event-stream", Map.of(), events, true);
    }

    private List<ObjectNode> toolCallDeltas(Reply.ToolCall call, int index) {
        List<ObjectNode> deltas = new ArrayList<>();
        ObjectNode first = JSON.createObjectNode();
        ObjectNode head = first.putArray("tool_calls").addObject();
        indexed(head, index).put("id", callId(call, index)).put("type", "function")
                .putObject("function").put("name", call.name()).put("arguments", "");
        deltas.add(first);
        String args = call.arguments();
        int third = Math.max(1, args.length() / 3);
        for (int start = 0; start < args.length(); start += third) {
            ObjectNode piece = JSON.createObjectNode();
            indexed(piece.putArray("tool_calls").addObject(), index).putObject("function")
                    .put("arguments", args.substring(start, Math.min(args.length(), start + third)));
            deltas.add(piece);
        }
        return deltas;
    }

    private ObjectNode indexed(ObjectNode toolCallDelta, int index) {
        return dialect == Dialect.LLAMA_CPP ? toolCallDelta : toolCallDelta.put("index", index);
    }

    private ObjectNode envelope() {
        ObjectNode chunk = JSON.createObjectNode();
        if (dialect != Dialect.OLLAMA) {
            chunk.put("id", id);
        }
        return chunk.put("object", "chat.completion.chunk").put("created", created).put("model", request.model());
    }

    private ObjectNode chunk(ObjectNode delta, String finishReason) {
        ObjectNode chunk = envelope();
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        choice.set("delta", delta);
        choice.put("finish_reason", finishReason);
        return chunk;
    }

    private static String event(ObjectNode chunk) {
        return "data: " + chunk + "\n\n";
    }

    private String reasoningField() {
        return dialect == Dialect.OLLAMA || dialect == Dialect.VLLM ? "reasoning" : "reasoning_content";
    }

    private static String callId(Reply.ToolCall call, int index) {
        return call.id() != null ? call.id() : "call_fake_" + index;
    }

    private static String finishReason(Reply.Completion c) {
        return c.finishReason() != null ? c.finishReason() : c.toolCalls().isEmpty() ? "stop" : "tool_calls";
    }

    private ObjectNode usage(Reply.Completion c) {
        long prompt;
        long completion;
        if (c.usage() != null) {
            prompt = c.usage().prompt();
            completion = c.usage().completion();
        } else {
            prompt = Math.max(1, request.body().length() / 4);
            completion = Math.max(1, (c.content().length() + (c.reasoning() == null ? 0 : c.reasoning().length())) / 4);
        }
        return JSON.createObjectNode().put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", prompt + completion);
    }
}
