package dev.herald.platforms.weixin;

import static dev.herald.platforms.LocalJsonServer.JSON;
import static dev.herald.platforms.LocalJsonServer.reply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local fake of the iLink bot API as public clients describe it: {@code getupdates} returns the
 * messages after the given {@code get_updates_buf} cursor ({@code c<N>} = N messages consumed) and the
 * cursor after them; {@code sendmessage} records what the bot sent. Calls without the right bearer token
 * get HTTP 401; {@link #failPolls} makes getupdates answer HTTP 500.
 */
final class FakeILink implements AutoCloseable {
    private final LocalJsonServer server;
    private final String token;
    private final List<ObjectNode> inbox = new CopyOnWriteArrayList<>();
    private final List<JsonNode> sent = new CopyOnWriteArrayList<>();
    /** Delay before a sent message is answered (it is delivered at once). */
    volatile java.time.Duration answerDelay = java.time.Duration.ZERO;
    private final List<String> cursorsAsked = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong(7_000_000_000L);
    private volatile boolean pollsFail;

    FakeILink(String token) {
        this.token = token;
        server = new LocalJsonServer(this::handle);
    }

    String apiBase() {
        return server.baseUrl();
    }

    /** A user writes to the bot; returns the message (to deliver it again). */
    ObjectNode userSays(String user, String text, String contextToken) {
        ObjectNode m = JSON.createObjectNode();
        m.put("message_id", ids.incrementAndGet());
        m.put("from_user_id", user);
        m.put("to_user_id", "bot@im.bot");
        m.put("create_time_ms", System.currentTimeMillis());
        m.put("message_type", 1);
        m.put("message_state", 2);
        m.putArray("item_list").addObject().put("type", 1).putObject("text_item").put("text", text);
        m.put("context_token", contextToken);
        inbox.add(m);
        return m;
    }

    /** The same message again, after the cursor (as a server that lost the acknowledgement would). */
    void deliverAgain(ObjectNode m) {
        inbox.add(m.deepCopy());
    }

    void failPolls(boolean fail) {
        pollsFail = fail;
    }

    /** Every sendmessage body's {@code msg}, in order. */
    List<JsonNode> sent() {
        return List.copyOf(sent);
    }

    List<String> cursorsAsked() {
        return new ArrayList<>(cursorsAsked);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
            if (!("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"))
                    || !"ilink_bot_token".equals(ex.getRequestHeaders().getFirst("AuthorizationType"))) {
                reply(ex, 401, JSON.createObjectNode().put("ret", -1).put("errmsg", "unauthorized"));
                return;
            }
            switch (ex.getRequestURI().getPath()) {
                case "/ilink/bot/getupdates" -> updates(ex, body);
                case "/ilink/bot/sendmessage" -> {
                    sent.add(body.path("msg"));
                    if (!answerDelay.isZero()) {
                        try {
                            Thread.sleep(answerDelay);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    reply(ex, 200, JSON.createObjectNode().put("ret", 0));
                }
                default -> reply(ex, 404, JSON.createObjectNode().put("ret", -1).put("errmsg", "no such method"));
            }
        }
    }

    private void updates(HttpExchange ex, JsonNode body) throws IOException {
        String cursor = body.path("get_updates_buf").asText("");
        cursorsAsked.add(cursor);
        if (pollsFail) {
            reply(ex, 500, JSON.createObjectNode().put("ret", -1).put("errmsg", "internal error"));
            return;
        }
        int from = cursor.startsWith("c") ? Integer.parseInt(cursor.substring(1)) : 0;
        if (from >= inbox.size()) {
            LocalJsonServer.holdEmptyPoll();
        }
        int to = inbox.size();
        ObjectNode out = JSON.createObjectNode().put("ret", 0);
        ArrayNode msgs = out.putArray("msgs");
        for (int i = from; i < to; i++) {
            msgs.add(inbox.get(i));
        }
        out.put("get_updates_buf", "c" + to);
        out.put("longpolling_timeout_ms", 35000);
        reply(ex, 200, out);
    }

    @Override
    public void close() {
        server.close();
    }
}
