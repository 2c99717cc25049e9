package dev.herald.web.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.web.api.CompletionWriter.Ending;
import dev.herald.web.api.CompletionWriter.EventStream;
import dev.herald.web.api.CompletionWriter.Wait;
import dev.herald.web.api.ReplyExchange.Signal;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.UUID;

/**
 * Writes a {@code /v1/responses} answer from a {@link ReplyExchange}: one {@code response} object, or its named
 * server-sent events ({@code response.created}, {@code response.in_progress}, {@code response.output_item.added},
 * {@code response.content_part.added}, {@code response.output_text.delta} ..., then the matching {@code .done} events
 * and {@code response.completed}), each with a growing {@code sequence_number}. As with chat completions, nothing is
 * sent before the first text or keep-alive, so an error that comes first still gets its real status; a later one is an
 * {@code error} event. Keep-alives, and the early probe when a stateless turn's tool starts, are as in {@link CompletionWriter}. A non-streamed answer of a stateless turn is padded with spaces while it waits ({@link PaddedJson}). The stream has no {@code [DONE]} line (the Responses API ends with {@code response.completed}).
 */
final class ResponsesWriter {
    private final CompletionWriter chat;
    private final ResponsesRequest request;

    ResponsesWriter(CompletionWriter chat, ResponsesRequest request) {
        this.chat = chat;
        this.request = request;
    }

    Ending respond(Context ctx, ReplyExchange exchange, ChatRequest chatRequest, Wait wait) {
        String model = chatRequest.model() == null ? chat.model() : chatRequest.model();
        Shape shape = new Shape(exchange.completionId(), "msg_" + UUID.randomUUID().toString().replace("-", ""),
                System.currentTimeMillis() / 1000, model, request.instructions());
        try {
            if (!chatRequest.stream()) {
                PaddedJson body = new PaddedJson(ctx, exchange.stoppable());
                Signal end = chat.awaitWhole(exchange, wait, body);
                if (end instanceof Signal.Done done) {
                    body.reply(OpenAiWire.bytes(shape.response("completed", done.text(), done.usage())));
                    return Ending.REPLIED;
                }
                body.fail(end instanceof Signal.Failed f ? f.error() : ApiError.timeout(wait.timeoutMessage()));
                return end instanceof Signal.Failed ? Ending.FAILED : Ending.TIMED_OUT;
            }
            EventStream sse = new EventStream(ctx.res());
            Signal end = awaitEnd(exchange, wait, sse, shape);
            if (end instanceof Signal.Done done) {
                shape.finish(sse, done);
                return Ending.REPLIED;
            }
            ApiError error = end instanceof Signal.Failed f ? f.error().seenUpTo(shape.streamed) : ApiError.timeout(wait.timeoutMessage());
            if (shape.started) {
                ObjectNode event = OpenAiWire.MAPPER.createObjectNode().put("type", "error").put("code", error.code())
                        .put("message", error.getMessage()).put("param", error.param()).put("sequence_number", shape.seq++);
                sse.event("error", OpenAiWire.bytes(event));
            } else {
                sse.fail(error);
            }
            return end instanceof Signal.Failed ? Ending.FAILED : Ending.TIMED_OUT;
        } catch (IOException e) {
            return Ending.DISCONNECTED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Ending.DISCONNECTED;
        }
    }

    /** Waits for the end of a stream, sending deltas as events and keep-alives while silent; null on timeout. */
    private Signal awaitEnd(ReplyExchange exchange, Wait wait, EventStream sse, Shape shape) throws IOException, InterruptedException {
        long nextBeat = System.nanoTime() + chat.heartbeatNanos();
        while (true) {
            long left = (wait.deadlineNanos() - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return null;
            }
            long untilBeat = (nextBeat - System.nanoTime()) / 1_000_000;
            Signal signal = exchange.next(Math.min(left, untilBeat));
            if (signal == null) {
                if (System.nanoTime() >= nextBeat) {
                    sse.keepAlive();
                    nextBeat = System.nanoTime() + Math.min(chat.heartbeatNanos(), CompletionWriter.LIVE_HEARTBEAT.toNanos());
                }
            } else if (signal instanceof Signal.Delta delta) {
                shape.delta(sse, delta.text());
                nextBeat = System.nanoTime() + CompletionWriter.LIVE_HEARTBEAT.toNanos();
            } else if (signal instanceof Signal.ToolRunning) {
                nextBeat = CompletionWriter.probeNow(exchange, nextBeat);
            } else {
                return signal;
            }
        }
    }

    /** The ids and the running state of one response's events. */
    private static final class Shape {
        final String id;
        final String itemId;
        final long created;
        final String model;
        final String instructions;
        final StringBuilder streamed = new StringBuilder();
        int seq;
        boolean started;

        Shape(String id, String itemId, long created, String model, String instructions) {
            this.id = id;
            this.itemId = itemId;
            this.created = created;
            this.model = model;
            this.instructions = instructions;
        }

        void delta(EventStream sse, String text) throws IOException {
            start(sse);
            streamed.append(text);
            sse.event("response.output_text.delta", with(event("response.output_text.delta").put("item_id", itemId).put("output_index", 0)
                    .put("content_index", 0).put("delta", text), "logprobs", OpenAiWire.MAPPER.createArrayNode()));
        }

        void finish(EventStream sse, Signal.Done done) throws IOException {
            String rest = CompletionWriter.remainder(streamed, done.text());
            if (!rest.isEmpty()) {
                delta(sse, rest);
            }
            start(sse);
            String text = streamed.toString();
            sse.event("response.output_text.done", with(event("response.output_text.done").put("item_id", itemId).put("output_index", 0)
                    .put("content_index", 0).put("text", text), "logprobs", OpenAiWire.MAPPER.createArrayNode()));
            sse.event("response.content_part.done", with(event("response.content_part.done").put("item_id", itemId).put("output_index", 0)
                    .put("content_index", 0), "part", part(text)));
            sse.event("response.output_item.done", with(event("response.output_item.done").put("output_index", 0),
                    "item", item("completed", text)));
            sse.event("response.completed", with(event("response.completed"), "response", response("completed", text, done.usage())));
        }

        private void start(EventStream sse) throws IOException {
            if (started) {
                return;
            }
            started = true;
            sse.event("response.created", with(event("response.created"), "response", response("in_progress", null, null)));
            sse.event("response.in_progress", with(event("response.in_progress"), "response", response("in_progress", null, null)));
            ObjectNode added = item("in_progress", null);
            sse.event("response.output_item.added", with(event("response.output_item.added").put("output_index", 0), "item", added));
            sse.event("response.content_part.added", with(event("response.content_part.added").put("item_id", itemId).put("output_index", 0)
                    .put("content_index", 0), "part", part("")));
        }

        private byte[] with(ObjectNode node, String key, com.fasterxml.jackson.databind.JsonNode value) {
            node.set(key, value);
            return OpenAiWire.bytes(node);
        }

        private ObjectNode event(String type) {
            return OpenAiWire.MAPPER.createObjectNode().put("type", type).put("sequence_number", seq++);
        }

        private ObjectNode part(String text) {
            ObjectNode part = OpenAiWire.MAPPER.createObjectNode().put("type", "output_text").put("text", text);
            part.putArray("annotations");
            return part;
        }

        /** The message output item; {@code text} null for one not yet written. */
        private ObjectNode item(String status, String text) {
            ObjectNode item = OpenAiWire.MAPPER.createObjectNode().put("id", itemId).put("type", "message").put("status", status)
                    .put("role", "assistant");
            ArrayNode content = item.putArray("content");
            if (text != null) {
                content.add(part(text));
            }
            return item;
        }

        /** The {@code response} object; {@code text} null while in progress. */
        ObjectNode response(String status, String text, Usage usage) {
            ObjectNode r = OpenAiWire.MAPPER.createObjectNode().put("id", id).put("object", "response").put("created_at", created)
                    .put("status", status).put("model", model);
            r.putNull("error");
            r.putNull("incomplete_details");
            if (instructions == null) {
                r.putNull("instructions");
            } else {
                r.put("instructions", instructions);
            }
            ArrayNode output = r.putArray("output");
            if (text != null) {
                output.add(item("completed", text));
            }
            r.put("parallel_tool_calls", false).put("tool_choice", "none");
            r.putArray("tools");
            if (usage != null) {
                r.putObject("usage").put("input_tokens", usage.promptTokens()).put("output_tokens", usage.completionTokens())
                        .put("total_tokens", usage.totalTokens());
            } else {
                r.putNull("usage");
            }
            return r;
        }
    }
}
