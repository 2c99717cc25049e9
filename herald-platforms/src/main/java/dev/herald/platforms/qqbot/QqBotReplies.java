package dev.herald.platforms.qqbot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The passive-reply ledger: which QQ messages a chat may still be answered with, and which {@code msg_seq} each reply
 * part carries. QQ takes a bot's message in a one-to-one chat or group as a passive reply only with the {@code msg_id}
 * of a user's message, within a window (60 minutes one-to-one, 5 minutes in a group) and at most {@link #MAX_REPLIES}
 * times per message; {@code msg_seq} numbers the replies to one {@code msg_id}, and QQ refuses a second message with the
 * same pair as a duplicate.
 *
 * <p>Kept in the store ({@link PlatformState}), one value per chat ({@code chat:<id>}: the chat's newest
 * {@link #KEPT} messages, each with its time, the Herald event it became, the next free {@code msg_seq} and the
 * {@code msg_seq} given to each idempotency key and QQ's id of each part sent). So a reply part sent again after a crash carries the {@code msg_seq} its
 * first attempt had, and QQ's duplicate refusal tells that the first attempt went out.
 */
final class QqBotReplies {
    /** Replies QQ takes to one message. */
    static final int MAX_REPLIES = 5;
    /** How long a one-to-one message may be answered. */
    static final Duration C2C_WINDOW = Duration.ofMinutes(60);
    /** How long a group message may be answered. */
    static final Duration GROUP_WINDOW = Duration.ofMinutes(5);
    /** Messages remembered per chat. */
    static final int KEPT = 8;

    private final PlatformState state;

    QqBotReplies(PlatformState state) {
        this.state = state;
    }

    /** A reply slot: the message answered, the sequence this part carries, whether the part was given it before. */
    record Slot(String msgId, int seq, boolean resend, Instant receivedAt, String sentId) {
    }

    /** Remembers a user's message {@code msgId} in {@code chat}, received at {@code at}, which became Herald event {@code eventId}. */
    synchronized void received(String chat, String msgId, Instant at, String eventId) {
        ObjectNode v = load(chat);
        ArrayNode msgs = (ArrayNode) v.withArray("msgs");
        for (JsonNode m : msgs) {
            if (msgId.equals(m.path("id").asText())) {
                return; // a redelivery: the first one's event stands
            }
        }
        ObjectNode m = JsonHttp.JSON.createObjectNode().put("id", msgId).put("at", at.toEpochMilli()).put("event", eventId).put("next", 1);
        m.putObject("keys");
        msgs.add(m);
        while (msgs.size() > KEPT) {
            msgs.remove(0);
        }
        save(chat, v);
    }

    /**
     * The slot for one reply part in {@code chat}: the message it answers (the one Herald event {@code correlationId} came
     * from, else {@code replyTo}, else the chat's newest: a notice, or a reply whose
     * message is no longer remembered), and its {@code msg_seq}, fixed for {@code key} once given. Empty
     * when the chat has no message to answer.
     */
    synchronized Optional<Slot> slot(String chat, String correlationId, String replyTo, String key) {
        ObjectNode v = load(chat);
        ArrayNode msgs = (ArrayNode) v.withArray("msgs");
        ObjectNode m = null;
        for (JsonNode n : msgs) {
            if (correlationId != null && correlationId.equals(n.path("event").asText())) {
                m = (ObjectNode) n;
            }
        }
        for (JsonNode n : msgs) {
            if (m == null && replyTo != null && replyTo.equals(n.path("id").asText())) {
                m = (ObjectNode) n;
            }
        }
        if (m == null && !msgs.isEmpty()) {
            m = (ObjectNode) msgs.get(msgs.size() - 1);
        }
        if (m == null) {
            return Optional.empty();
        }
        Instant at = Instant.ofEpochMilli(m.path("at").asLong());
        ObjectNode keys = (ObjectNode) m.withObject("keys");
        if (key != null && keys.has(key)) {
            return Optional.of(new Slot(m.path("id").asText(), keys.get(key).asInt(), true, at, m.path("sent").path(key).asText(null)));
        }
        int seq = m.path("next").asInt(1);
        m.put("next", seq + 1);
        if (key != null) {
            keys.put(key, seq);
        }
        save(chat, v); // before the send: a crash after it leaves the sequence on record
        return Optional.of(new Slot(m.path("id").asText(), seq, false, at, null));
    }

    /** Records QQ's id {@code sentId} for the part {@code key} that replied to {@code msgId}, for a resend to report. */
    synchronized void sent(String chat, String msgId, String key, String sentId) {
        if (key == null || sentId == null) {
            return;
        }
        ObjectNode v = load(chat);
        for (JsonNode n : v.withArray("msgs")) {
            if (msgId.equals(n.path("id").asText()) && n instanceof ObjectNode m) {
                m.withObject("sent").put(key, sentId);
                save(chat, v);
                return;
            }
        }
    }

    private ObjectNode load(String chat) {
        Optional<String> raw = state.get(QqBotAdapter.PLATFORM, "chat:" + chat);
        if (raw.isPresent()) {
            try {
                JsonNode n = JsonHttp.JSON.readTree(raw.get());
                if (n instanceof ObjectNode o && o.path("msgs").isArray()) {
                    return o;
                }
            } catch (IOException e) {
                // unreadable: start again
            }
        }
        ObjectNode o = JsonHttp.JSON.createObjectNode();
        o.putArray("msgs");
        return o;
    }

    private void save(String chat, ObjectNode v) {
        state.put(QqBotAdapter.PLATFORM, Map.of("chat:" + chat, v.toString()));
    }
}
