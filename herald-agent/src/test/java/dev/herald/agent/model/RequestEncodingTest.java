package dev.herald.agent.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ImagePart;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.transcript.ToolCall;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request body spliced from kept encodings ({@link Wire#encode}, {@link EncodedMessages}, {@link ToolSpec}): the
 * model receives the same JSON a tree of the whole request would give, with a correct length, turn after turn.
 */
class RequestEncodingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Clients.against(fake);

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private static List<ChatMessage> conversation(int turns) {
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(ChatMessage.system("You are Herald. \"Quotes\", backslashes \\ and ünïcödé ✓ are kept."));
        for (int i = 1; i <= turns; i++) {
            messages.add(ChatMessage.user("question " + i + " with a tab\t and a newline\n"));
            messages.add(ChatMessage.assistant(null, List.of(new ToolCall("call_" + i, "read_file", "{\"path\":\"f" + i + ".txt\"}"))));
            messages.add(ChatMessage.tool("call_" + i, "read_file", "line\n".repeat(3_000))); // 15 KB: a block of its own
            messages.add(ChatMessage.assistant("answer " + i));
        }
        return messages;
    }

    /** What the request looked like when it was built as one tree: the oracle. */
    private static JsonNode asTree(ModelRequest request, String model) {
        ObjectNode body = JSON.createObjectNode().put("model", model);
        ArrayNode messages = body.putArray("messages");
        for (ChatMessage m : request.messages()) {
            ObjectNode node = messages.addObject().put("role", m.role().wire());
            if (m.hasImages()) {
                ArrayNode parts = node.putArray("content");
                parts.addObject().put("type", "text").put("text", m.content());
                m.images().forEach(i -> parts.addObject().put("type", "image_url").putObject("image_url").put("url", i.dataUrl()));
            } else {
                node.put("content", m.content());
            }
            if (m.hasToolCalls()) {
                ArrayNode calls = node.putArray("tool_calls");
                m.toolCalls().forEach(c -> calls.addObject().put("id", c.id()).put("type", "function").putObject("function")
                        .put("name", c.name()).put("arguments", c.argumentsJson()));
            }
            if (m.toolCallId() != null) {
                node.put("tool_call_id", m.toolCallId());
            }
            if (m.name() != null) {
                node.put("name", m.name());
            }
        }
        ArrayNode tools = body.putArray("tools");
        request.tools().forEach(t -> tools.addObject().put("type", "function").putObject("function").put("name", t.name())
                .put("description", t.description()).set("parameters", t.parameters()));
        body.put("stream", request.stream());
        body.putObject("stream_options").put("include_usage", true);
        body.put("temperature", 0.25);
        body.put("max_tokens", 512);
        body.put("top_p", 0.9);
        return body;
    }

    @Test
    void complete_longConversationTwice_modelReceivesTheSameJsonATreeWouldGive_withItsLength() throws Exception {
        ToolSpec tool = ToolSpec.of("read_file", "Reads a file", "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}");
        List<ChatMessage> messages = new ArrayList<>(conversation(3));
        for (int turn = 0; turn < 2; turn++) {
            messages.add(ChatMessage.user("and now " + turn));
            ModelRequest request = ModelRequest.streaming(messages).withTools(List.of(tool)).withSampling(0.7, 512)
                    .withParameters(Map.of("temperature", "0.25", "top_p", "0.9"));
            fake.enqueue(Reply.stream("ok ", Integer.toString(turn)));

            client.complete(request, null, new Interrupt());

            var received = fake.lastRequest();
            assertThat(received.json()).isEqualTo(asTree(request, client.modelName()));
            assertThat(received.header("Content-Length")).isEqualTo(Integer.toString(received.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length));
            messages.add(ChatMessage.assistant("ok " + turn));
        }
    }

    @Test
    void encode_messageWithImages_isSentAsParts() {
        ChatMessage withImage = ChatMessage.user("look", List.of(new ImagePart("image/png", "iVBORw0KGgo=")));
        ModelRequest request = new ModelRequest(null, List.of(withImage), List.of(), false, null, null);

        JsonNode body = parse(Wire.encode(request, "m"));

        assertThat(body.at("/messages/0/content/0/text").asText()).isEqualTo("look");
        assertThat(body.at("/messages/0/content/1/image_url/url").asText()).isEqualTo("data:image/png;base64,iVBORw0KGgo=");
        assertThat(body.has("tools")).isFalse();
        assertThat(body.has("temperature")).isFalse();
        assertThat(body.get("stream").asBoolean()).isFalse();
    }

    @Test
    void encodedMessages_aMessageSentAgain_isKeptFromItsSecondEncoding_andTheBoundDropsOldOnes() {
        EncodedMessages cache = new EncodedMessages(64 * 1024);
        AtomicInteger encoded = new AtomicInteger();
        List<ChatMessage> history = conversation(1).subList(0, 2);
        java.util.function.Function<ChatMessage, byte[]> counting = m -> {
            encoded.incrementAndGet();
            return Wire.message(m);
        };
        history.forEach(m -> cache.get(m, counting));
        assertThat(cache.size()).as("sent once: nothing kept").isZero();
        byte[] second = cache.get(history.get(1), counting);
        history.forEach(m -> cache.get(m, counting));
        assertThat(encoded.get()).as("each encoded twice, then spliced").isEqualTo(4);
        ChatMessage equalButNew = ChatMessage.user(new String(history.get(1).content()));
        assertThat(cache.get(equalButNew, counting)).isSameAs(second);
        assertThat(encoded.get()).isEqualTo(4);

        for (int i = 0; i < 200; i++) {
            ChatMessage filler = ChatMessage.user("filler " + i + " " + "y".repeat(500));
            cache.get(filler, counting);
            cache.get(filler, counting);
        }
        cache.get(history.get(1), counting);
        assertThat(encoded.get()).as("dropped after a generation nobody asked for it").isEqualTo(405);
        assertThat(cache.size()).isLessThan(200);
    }

    @Test
    void encodedMessages_messagesSentOnlyOnce_keepNothing() {
        EncodedMessages cache = new EncodedMessages();
        for (int i = 0; i < 10_000; i++) {
            byte[] bytes = cache.get(ChatMessage.user("a new conversation's only message " + i), Wire::message);
            assertThat(new String(bytes, java.nio.charset.StandardCharsets.UTF_8)).contains("message " + i + "\"");
        }
        assertThat(cache.size()).isZero();
    }

    private static JsonNode parse(Body body) {
        try {
            assertThat(body.bytes()).hasSize((int) body.length());
            return JSON.readTree(body.bytes());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
