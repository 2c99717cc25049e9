package dev.herald.app.hooks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import java.time.Instant;

/**
 * The JSON a hook receives. It names what happened and where (node, platform, chat, user, session, turn), never what
 * was said: no message text, no reply, no tool arguments, no configuration value. An absent value is left out.
 */
final class HookPayload {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Longest approval reason passed on (the tool's own short phrase, such as "runs a shell command"). */
    static final int MAX_REASON = 200;

    private HookPayload() {
    }

    static String gateway(HookEvent event, Instant time, String node, String kind) {
        ObjectNode o = base(event, time, node);
        if (kind != null) {
            o.put("stop_kind", kind);
        }
        return o.toString();
    }

    static String sessionStarted(Instant time, String node, TurnRecord turn) {
        return ofTurn(HookEvent.SESSION_STARTED, time, node, turn).toString();
    }

    static String turnEnded(HookEvent event, Instant time, String node, TurnRecord turn, TurnOutcome outcome, long nanos) {
        ObjectNode o = ofTurn(event, time, node, turn);
        o.put("outcome", outcome.kind());
        o.put("duration_ms", nanos / 1_000_000);
        return o.toString();
    }

    static String approval(Instant time, String node, TurnRecord turn, String tool, String reason) {
        ObjectNode o = ofTurn(HookEvent.APPROVAL_REQUESTED, time, node, turn);
        o.put("tool", tool);
        String r = reason == null ? "" : reason.replaceAll("\\p{Cntrl}", " ").strip();
        o.put("reason", r.length() <= MAX_REASON ? r : r.substring(0, MAX_REASON) + "...");
        return o.toString();
    }

    private static ObjectNode base(HookEvent event, Instant time, String node) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event", event.wire());
        o.put("time", time.toString());
        if (node != null) {
            o.put("node", node);
        }
        return o;
    }

    private static ObjectNode ofTurn(HookEvent event, Instant time, String node, TurnRecord turn) {
        ObjectNode o = base(event, time, node);
        SessionSource s = turn.source();
        o.put("platform", s.platform().id());
        o.put("chat_id", s.chatId());
        o.put("chat_type", s.chatType().name().toLowerCase(java.util.Locale.ROOT));
        putIf(o, "thread_id", s.threadId());
        putIf(o, "user_id", s.userId());
        o.put("session_key", turn.sessionKey().value());
        putIf(o, "session_id", turn.sessionId());
        o.put("turn_id", turn.id());
        return o;
    }

    private static void putIf(ObjectNode o, String key, String value) {
        if (value != null) {
            o.put(key, value);
        }
    }
}
