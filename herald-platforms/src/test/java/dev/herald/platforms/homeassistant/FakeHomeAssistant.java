package dev.herald.platforms.homeassistant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.websocket.WsContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for Home Assistant's WebSocket API ({@code /api/websocket}), written for these tests from Home
 * Assistant's developer documentation: {@code auth_required} on open, {@code auth} with an access token answered
 * {@code auth_ok} (with {@code ha_version}) or {@code auth_invalid} and a close; then commands whose {@code id} must
 * increase on each connection ({@code id_reuse} otherwise), each answered by a {@code result} (success and result, or an
 * error with a code and message): {@code supported_features}, {@code get_states}, {@code call_service} (known services
 * only; {@code light.turn_on}/{@code turn_off} and {@code lock.lock}/{@code unlock} change the entity's state and fire
 * {@code state_changed}), {@code subscribe_events}/{@code unsubscribe_events}, and {@code ping} answered by {@code pong}.
 * Everything it receives is recorded.
 */
final class FakeHomeAssistant implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TOKEN = "eyJhbGciOiJIUzI1NiJ9.long-lived-token-for-tests";
    static final String VERSION = "2025.11.2";

    /** One service call as Home Assistant received it. */
    record Call(String domain, String service, JsonNode serviceData, JsonNode target) {
    }

    private record Conn(WsContext ctx, AtomicInteger lastId, Map<Integer, String> subscriptions, boolean[] authed) {
    }

    private final Javalin app;
    private final Map<String, ObjectNode> states = new ConcurrentHashMap<>();
    private final Set<String> services = ConcurrentHashMap.newKeySet();
    private final List<Conn> conns = new CopyOnWriteArrayList<>();
    final List<Call> calls = new CopyOnWriteArrayList<>();
    /** Every command's type, in arrival order, auth included (never its token). */
    final List<String> commands = new CopyOnWriteArrayList<>();
    final List<String> tokensRefused = new CopyOnWriteArrayList<>();
    final AtomicInteger authenticated = new AtomicInteger();

    FakeHomeAssistant() {
        state("light.kitchen", "off", "Kitchen light");
        state("light.porch", "on", "Porch light");
        state("lock.front_door", "locked", "Front door");
        state("sensor.outside_temperature", "7.5", "Outside").putObject("attributes").put("friendly_name", "Outside")
                .put("unit_of_measurement", "°C");
        services.addAll(List.of("light.turn_on", "light.turn_off", "light.toggle", "lock.lock", "lock.unlock", "notify.mobile_app_phone",
                "persistent_notification.create"));
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.ws("/api/websocket", ws -> {
                ws.onConnect(ctx -> {
                    Conn c = new Conn(ctx, new AtomicInteger(), new ConcurrentHashMap<>(), new boolean[1]);
                    conns.add(c);
                    send(c, JSON.createObjectNode().put("type", "auth_required").put("ha_version", VERSION));
                });
                ws.onMessage(ctx -> conns.stream().filter(c -> c.ctx().sessionId().equals(ctx.sessionId())).findFirst()
                        .ifPresent(c -> onMessage(c, ctx.message())));
                ws.onClose(ctx -> conns.removeIf(c -> c.ctx().sessionId().equals(ctx.sessionId())));
            });
        }).start("127.0.0.1", 0);
    }

    String url() {
        return "http://127.0.0.1:" + app.port();
    }

    private ObjectNode state(String entity, String value, String name) {
        ObjectNode s = JSON.createObjectNode().put("entity_id", entity).put("state", value);
        s.putObject("attributes").put("friendly_name", name);
        s.put("last_changed", "2026-12-06T05:00:00+00:00").put("last_updated", "2026-12-06T05:00:00+00:00");
        s.putObject("context").put("id", UUID.randomUUID().toString()).putNull("parent_id").putNull("user_id");
        states.put(entity, s);
        return s;
    }

    String stateOf(String entity) {
        return states.get(entity).path("state").asText();
    }

    int connections() {
        return conns.size();
    }

    /** Drops every connection without a close frame, as a restarting Home Assistant does. */
    void dropAll() {
        conns.forEach(c -> c.ctx().session.disconnect());
    }

    private void onMessage(Conn c, String text) {
        JsonNode m;
        try {
            m = JSON.readTree(text);
        } catch (Exception e) {
            c.ctx().closeSession(1003, "not json");
            return;
        }
        String type = m.path("type").asText();
        commands.add(type);
        if (!c.authed()[0]) {
            if ("auth".equals(type) && TOKEN.equals(m.path("access_token").asText())) {
                c.authed()[0] = true;
                authenticated.incrementAndGet();
                send(c, JSON.createObjectNode().put("type", "auth_ok").put("ha_version", VERSION));
            } else {
                tokensRefused.add(m.path("access_token").asText());
                send(c, JSON.createObjectNode().put("type", "auth_invalid").put("message", "Invalid access token or password"));
                // Home Assistant closes once the answer is out; closing here at once could overtake it
                Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (c.ctx().session.isOpen()) {
                        c.ctx().closeSession(1000, "");
                    }
                });
            }
            return;
        }
        int id = m.path("id").asInt(-1);
        int last = c.lastId().get();
        if (id <= last) {
            send(c, error(id, "id_reuse", "Identifier values have to increase."));
            return;
        }
        c.lastId().set(id);
        switch (type) {
            case "supported_features", "unsubscribe_events" -> send(c, ok(id, null));
            case "get_states" -> {
                ArrayNode all = JSON.createArrayNode();
                states.values().stream().sorted((a, b) -> a.path("entity_id").asText().compareTo(b.path("entity_id").asText())).forEach(all::add);
                send(c, ok(id, all));
            }
            case "subscribe_events" -> {
                c.subscriptions().put(id, m.path("event_type").asText("*"));
                send(c, ok(id, null));
            }
            case "ping" -> send(c, JSON.createObjectNode().put("id", id).put("type", "pong"));
            case "call_service" -> callService(c, id, m);
            default -> send(c, error(id, "unknown_command", "Unknown command."));
        }
    }

    private void callService(Conn c, int id, JsonNode m) {
        String name = m.path("domain").asText() + "." + m.path("service").asText();
        if (!services.contains(name)) {
            send(c, error(id, "not_found", "Service " + name + " not found."));
            return;
        }
        calls.add(new Call(m.path("domain").asText(), m.path("service").asText(), m.path("service_data"), m.path("target")));
        ObjectNode context = JSON.createObjectNode().put("id", UUID.randomUUID().toString()).putNull("parent_id").putNull("user_id");
        ObjectNode result = JSON.createObjectNode();
        result.set("context", context);
        result.putNull("response");
        send(c, ok(id, result));
        String next = switch (name) {
            case "light.turn_on" -> "on";
            case "light.turn_off" -> "off";
            case "lock.lock" -> "locked";
            case "lock.unlock" -> "unlocked";
            default -> null;
        };
        if (next != null) {
            JsonNode ids = m.path("target").path("entity_id"); // a string or a list, as Home Assistant takes either
            for (JsonNode e : ids.isTextual() ? List.of(ids) : ids) {
                ObjectNode old = states.get(e.asText());
                if (old != null) {
                    ObjectNode now = old.deepCopy().put("state", next);
                    states.put(e.asText(), now);
                    stateChanged(e.asText(), old, now);
                }
            }
        }
    }

    private void stateChanged(String entity, ObjectNode old, ObjectNode now) {
        for (Conn c : conns) {
            c.subscriptions().forEach((subscription, eventType) -> {
                if (eventType.equals("state_changed") || eventType.equals("*")) {
                    ObjectNode message = JSON.createObjectNode().put("id", subscription).put("type", "event");
                    ObjectNode event = message.putObject("event").put("event_type", "state_changed").put("time_fired", "2026-12-06T05:01:00+00:00")
                            .put("origin", "LOCAL");
                    event.putObject("data").put("entity_id", entity).<ObjectNode>set("old_state", old).set("new_state", now);
                    event.putObject("context").put("id", UUID.randomUUID().toString());
                    send(c, message);
                }
            });
        }
    }

    private static ObjectNode ok(int id, JsonNode result) {
        ObjectNode r = JSON.createObjectNode().put("id", id).put("type", "result").put("success", true);
        r.set("result", result);
        return r;
    }

    private static ObjectNode error(int id, String code, String message) {
        ObjectNode r = JSON.createObjectNode().put("id", id).put("type", "result").put("success", false);
        r.putObject("error").put("code", code).put("message", message);
        return r;
    }

    private static void send(Conn c, ObjectNode message) {
        synchronized (c) {
            if (c.ctx().session.isOpen()) {
                c.ctx().send(message.toString());
            }
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
