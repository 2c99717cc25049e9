package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.SendResult;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.PlatformIds;
import dev.herald.platforms.common.PressLedger;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approval questions as buttons: a question that offers {@code /approve} goes out with an action row of three buttons
 * whose {@code custom_id} is the command ({@code herald:/approve}, {@code herald:/approve always}, {@code herald:/deny});
 * a press arrives over the gateway as INTERACTION_CREATE (type 3, a message component) and is handed to the gateway as
 * that command typed by the presser, so the gateway alone decides whether the presser may answer and whether a question
 * is open.
 *
 * <p>The gateway's answer to the command comes back through {@code send} with the press's event id; {@link #answer}
 * turns it into the interaction's response (Discord wants one within 3 seconds): a decision (the gateway's answer
 * starts with ✅ or ❌) edits the question in place (type 7, UPDATE_MESSAGE: the question, then "✅ Approved by
 * Alice", no buttons; a PATCH of the message when the response is refused); anything else (nothing open, a command
 * the presser's tier may not run) goes to the presser alone (type 4, ephemeral). A presser the gateway refuses gets
 * an ephemeral "not allowed" and the question stays open.
 *
 * <p>Once only: the press's interaction id and the answered question's message id are kept in the store's platform
 * state ({@link PressLedger}), so a press replayed by a RESUME, after a restart or on another node is dropped, and a
 * second press on a question already answered (a double click before the buttons went away) is told so instead of
 * answering the session's next question. Presses are handled one at a time, on the adapter's inbound worker.
 */
final class DiscordPresses {
    private static final Logger log = LoggerFactory.getLogger(DiscordPresses.class);
    static final String PREFIX = "herald:";
    /** Label, button style (3 green, 1 blurple, 4 red) and command of each button, in order. */
    private static final List<String[]> BUTTONS = List.of(new String[] {"Approve", "3", "/approve"},
            new String[] {"Always", "1", "/approve always"}, new String[] {"Deny", "4", "/deny"});
    private static final Map<String, String> VERDICTS = Map.of("/approve", "\u2705 Approved by %s",
            "/approve always", "\u2705 Approved by %s (from now on for this tool in this session)", "/deny", "\u274c Denied by %s");
    /** Interaction tokens are URL-safe text; anything else is not one Discord sent. */
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._-]{1,512}");
    private static final int EPHEMERAL = 64;
    static final String NOT_ALLOWED = "You are not allowed to answer this question.";
    static final String ALREADY_ANSWERED = "This question was already answered.";
    static final String UNAVAILABLE = "Herald cannot take this right now; press again in a moment.";

    /** One press being answered. */
    record Press(String interactionId, String token, String channelId, String messageId, String question, String command, String who,
            MessageEvent event) {
    }

    private final DiscordRest rest;
    private final ChannelDirectory channels;
    private final Clock clock;
    private final ObjectMapper json;
    private final PressLedger presses;
    private final PressLedger answered;
    private final Map<String, Press> pending = new ConcurrentHashMap<>();

    DiscordPresses(DiscordRest rest, ChannelDirectory channels, Clock clock, ObjectMapper json, PlatformState state) {
        this.rest = rest;
        this.channels = channels;
        this.clock = clock;
        this.json = json;
        this.presses = new PressLedger(state, DiscordAdapter.PLATFORM, "recent_button_presses", 128);
        this.answered = new PressLedger(state, DiscordAdapter.PLATFORM, "answered_questions", 128);
    }

    /** Whether {@code m} is an approval question to send with buttons. */
    static boolean wantsButtons(OutboundMessage m) {
        return m.kind() == dev.herald.core.platform.MessageKind.PROMPT && m.file() == null && m.text().contains("/approve");
    }

    /** The action row of the three buttons. */
    ArrayNode buttons() {
        ArrayNode rows = json.createArrayNode();
        ArrayNode row = rows.addObject().put("type", 1).putArray("components");
        for (String[] b : BUTTONS) {
            row.addObject().put("type", 2).put("style", Integer.parseInt(b[1])).put("label", b[0]).put("custom_id", PREFIX + b[2]);
        }
        return rows;
    }

    /** One INTERACTION_CREATE dispatch: a press of one of Herald's buttons is handed to the gateway; anything else is ignored. */
    void handle(JsonNode d, InboundSink sink) {
        Optional<Press> read = read(d);
        if (read.isEmpty()) {
            log.debug("discord - ignored an interaction that is not a press of Herald's buttons");
            return;
        }
        Press p = read.get();
        if (presses.contains(p.interactionId())) {
            log.info("discord - button press {} was delivered before; dropped", p.interactionId());
            return;
        }
        if (answered.contains(p.messageId())) {
            respond(p, ephemeral(ALREADY_ANSWERED));
            note(p);
            return;
        }
        pending.put(p.event().eventId(), p);
        Admission a;
        try {
            a = sink.accept(p.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("discord - the gateway failed to take button press {}", p.interactionId(), e);
            }
            a = Admission.REJECTED_UNAVAILABLE;
        }
        Press unanswered = pending.remove(p.event().eventId());
        boolean rejected = a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE;
        if (unanswered != null) {
            ObjectNode response = a == Admission.REFUSED ? ephemeral(NOT_ALLOWED)
                    : rejected ? ephemeral(UNAVAILABLE) : json.createObjectNode().put("type", 6);
            respond(p, response);
        }
        if (a == Admission.REFUSED) {
            log.info("discord - button press {} by {} refused: not allowed to talk to the agent; the question stays open",
                    p.interactionId(), p.event().source().userId());
        }
        if (!rejected) {
            note(p);
        }
    }

    /**
     * The gateway's answer to a press, as the interaction's response: a decision edits the question, anything else goes
     * to the presser alone. Empty when {@code m} answers no press being handled (it is sent as usual).
     */
    Optional<SendResult> answer(OutboundMessage m) {
        Press p = m.correlationId() == null ? null : pending.remove(m.correlationId());
        if (p == null) {
            return Optional.empty();
        }
        String text = m.text().strip();
        if (!(text.startsWith("\u2705") || text.startsWith("\u274c"))) {
            return respond(p, ephemeral(DiscordMarkdown.render(m.text()))) ? Optional.of(SendResult.sent(null)) : Optional.empty();
        }
        try {
            answered.note(p.messageId());
        } catch (RuntimeException e) {
            log.warn("discord - could not keep question {} as answered ({}); a second press on it is answered by the gateway",
                    p.messageId(), e.toString());
        }
        String content = decided(p.question(), String.format(VERDICTS.get(p.command()), p.who()));
        ObjectNode update = json.createObjectNode().put("type", 7);
        ObjectNode data = update.putObject("data").put("content", content);
        data.putArray("components");
        data.putObject("allowed_mentions").putArray("parse");
        if (respond(p, update)) {
            return Optional.of(SendResult.sent(p.messageId()));
        }
        return Optional.of(rest.editMessage(p.channelId(), p.messageId(), content, true));
    }

    /** The question without its "Reply /approve ..." line, then the verdict; within Discord's 2,000 characters. */
    static String decided(String question, String verdict) {
        String q = question.lines().filter(l -> !l.contains("/approve")).reduce((a, b) -> a + "\n" + b).orElse("").strip();
        int room = DiscordAdapter.MAX_TEXT - verdict.length() - 3;
        if (q.length() > room) {
            q = q.substring(0, Math.max(0, room - 1)) + "\u2026";
        }
        return q.isEmpty() ? verdict : q + "\n\n" + verdict;
    }

    /** The press in an INTERACTION_CREATE, or empty when it is not a well-formed press of one of Herald's buttons. */
    Optional<Press> read(JsonNode d) {
        if (d.path("type").asInt(0) != 3 || d.path("data").path("component_type").asInt(0) != 2) {
            return Optional.empty();
        }
        String customId = d.path("data").path("custom_id").asText("");
        String command = customId.startsWith(PREFIX) ? customId.substring(PREFIX.length()) : "";
        String id = PlatformIds.of(d.path("id"));
        String token = d.path("token").asText("");
        String channelId = PlatformIds.of(d.path("channel_id"));
        JsonNode message = d.path("message");
        String messageId = PlatformIds.of(message.path("id"));
        JsonNode user = d.path("member").has("user") ? d.path("member").path("user") : d.path("user");
        String userId = PlatformIds.of(user.path("id"));
        if (!VERDICTS.containsKey(command) || id == null || !TOKEN.matcher(token).matches() || channelId == null || messageId == null
                || userId == null || user.path("bot").asBoolean(false)) {
            return Optional.empty();
        }
        String name = user.hasNonNull("global_name") ? user.get("global_name").asText() : user.path("username").asText(userId);
        SessionSource source;
        if (!d.hasNonNull("guild_id")) {
            source = new SessionSource(DiscordAdapter.PLATFORM, channelId, ChatType.DM, userId, name, null, null);
        } else {
            ChannelDirectory.Channel channel = channels.get(channelId);
            source = channel.isThread() && PlatformIds.clean(channel.parentId()) != null
                    ? new SessionSource(DiscordAdapter.PLATFORM, channel.parentId(), ChatType.THREAD, userId, name, channelId, channel.name())
                    : new SessionSource(DiscordAdapter.PLATFORM, channelId, ChatType.GROUP, userId, name, null, channel.name());
        }
        MessageEvent event = new MessageEvent(EventIds.next(), source, command, id, null, List.of(), MessageEvent.Origin.USER, clock.instant());
        return Optional.of(new Press(id, token, channelId, messageId, message.path("content").asText(""), command, shown(name), event));
    }

    /** A display name as plain text in Discord Markdown: no control characters, markup escaped, at most 64 characters. */
    static String shown(String name) {
        String n = name.replaceAll("\\p{Cntrl}", "").strip();
        if (n.length() > 64) {
            n = n.substring(0, 64);
        }
        return n.isEmpty() ? "someone" : n.replaceAll("([\\\\*_~`|>#@<\\[\\]()])", "\\\\$1");
    }

    private ObjectNode ephemeral(String text) {
        ObjectNode r = json.createObjectNode().put("type", 4);
        ObjectNode data = r.putObject("data").put("content", text.length() > DiscordAdapter.MAX_TEXT ? text.substring(0, DiscordAdapter.MAX_TEXT) : text)
                .put("flags", EPHEMERAL);
        data.putObject("allowed_mentions").putArray("parse");
        return r;
    }

    private boolean respond(Press p, ObjectNode response) {
        return rest.answerInteraction(p.interactionId(), p.token(), response);
    }

    private void note(Press p) {
        try {
            presses.note(p.interactionId());
        } catch (RuntimeException e) {
            log.warn("discord - could not keep button press {} as handled ({}); a replay of it would be answered again", p.interactionId(),
                    e.toString());
        }
    }
}
