package dev.herald.platforms.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approval questions as Block Kit buttons: a question that offers {@code /approve} goes out as a section (the question)
 * and an actions block of three buttons whose {@code value} is the command; a press arrives on the Socket Mode
 * connection as an {@code interactive} envelope with a {@code block_actions} payload and is handed to the gateway as that
 * command from {@code payload.user.id}, so the gateway alone decides whether the presser may answer and whether a
 * question is open.
 *
 * <p>The gateway's answer comes back through {@code send} with the press's event id; {@link #answer} turns a decision
 * (an answer starting with ✅ or ❌) into a {@code chat.update} of the question (the question, then "✅ Approved by
 * @alice", no buttons), and anything else (nothing open, a command the presser's tier may not run) into a
 * {@code chat.postEphemeral} to the presser alone. A presser the gateway refuses is told so ephemerally; the question
 * stays open.
 *
 * <p>Once only: the press ({@code trigger_id}) and the answered question ({@code <channel>:<ts>}) are kept in the store's
 * platform state ({@link PressLedger}), so Slack's redelivery of the envelope (after a late ack, or to the restarted
 * process) is dropped, and a second press on an answered question is told so instead of answering the next one. The
 * envelope is acknowledged after the gateway took the press, as for messages; one Herald could not take (stopping, the
 * store down) is left unacknowledged, so Slack delivers it again.
 */
final class SlackPresses {
    private static final Logger log = LoggerFactory.getLogger(SlackPresses.class);
    /** Label, style and command of each button, in order ({@code action_id} = herald_ + the label in lower case). */
    private static final List<String[]> BUTTONS = List.of(new String[] {"Approve", "primary", "/approve"},
            new String[] {"Always", null, "/approve always"}, new String[] {"Deny", "danger", "/deny"});
    private static final Map<String, String> VERDICTS = Map.of("/approve", "\u2705 Approved by %s",
            "/approve always", "\u2705 Approved by %s (from now on for this tool in this session)", "/deny", "\u274c Denied by %s");
    /** A section's text may hold 3,000 characters; a longer question goes out as text, answered by typing. */
    static final int MAX_SECTION = 3000;
    static final String NOT_ALLOWED = "You are not allowed to answer this question.";
    static final String ALREADY_ANSWERED = "This question was already answered.";

    /** One press being answered. */
    record Press(String id, String channel, String ts, String threadTs, String question, String command, String user, MessageEvent event) {
        String questionId() {
            return channel + ":" + ts;
        }
    }

    /** What became of an envelope: acknowledge it, or leave it for Slack to deliver again. */
    enum Outcome { ACK, LEAVE }

    private final SlackWebApi web;
    private final Clock clock;
    private final ObjectMapper json;
    private final PressLedger presses;
    private final PressLedger answered;
    private final Map<String, Press> pending = new ConcurrentHashMap<>();

    SlackPresses(SlackWebApi web, Clock clock, ObjectMapper json, PlatformState state) {
        this.web = web;
        this.clock = clock;
        this.json = json;
        this.presses = new PressLedger(state, SlackAdapter.PLATFORM, "recent_button_presses", 128);
        this.answered = new PressLedger(state, SlackAdapter.PLATFORM, "answered_questions", 128);
    }

    /** The blocks of an approval question {@code m} written as {@code mrkdwn}; empty when it is not one, or too long for a section. */
    Optional<ArrayNode> blocks(OutboundMessage m, String mrkdwn) {
        if (m.kind() != MessageKind.PROMPT || m.file() != null || !m.text().contains("/approve") || mrkdwn.length() > MAX_SECTION) {
            return Optional.empty();
        }
        ArrayNode blocks = json.createArrayNode();
        blocks.addObject().put("type", "section").putObject("text").put("type", "mrkdwn").put("text", mrkdwn);
        ArrayNode buttons = blocks.addObject().put("type", "actions").put("block_id", "herald_approval").putArray("elements");
        for (String[] b : BUTTONS) {
            ObjectNode button = buttons.addObject().put("type", "button").put("action_id", "herald_" + b[0].toLowerCase(java.util.Locale.ROOT))
                    .put("value", b[2]);
            button.putObject("text").put("type", "plain_text").put("text", b[0]);
            if (b[1] != null) {
                button.put("style", b[1]);
            }
        }
        return Optional.of(blocks);
    }

    /** One {@code interactive} envelope's payload: a press of Herald's buttons goes to the gateway; anything else is acknowledged and ignored. */
    synchronized Outcome handle(JsonNode payload, InboundSink sink) {
        Optional<Press> read = read(payload);
        if (read.isEmpty()) {
            log.debug("slack - an interactive payload that is not a press of Herald's buttons, acknowledged and ignored");
            return Outcome.ACK;
        }
        Press p = read.get();
        if (presses.contains(p.id())) {
            log.info("slack - button press {} was delivered before; dropped", p.id());
            return Outcome.ACK;
        }
        if (answered.contains(p.questionId())) {
            web.postEphemeral(p.channel(), p.user(), ALREADY_ANSWERED, p.threadTs());
            return note(p);
        }
        pending.put(p.event().eventId(), p);
        Admission a;
        try {
            a = sink.accept(p.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("slack - the gateway failed to take button press {}; not acknowledged, Slack will deliver it again", p.id(), e);
            }
            a = Admission.REJECTED_UNAVAILABLE;
        } finally {
            pending.remove(p.event().eventId());
        }
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            log.info("slack - button press {} not taken ({}); not acknowledged, Slack will deliver it again", p.id(), a);
            return Outcome.LEAVE;
        }
        if (a == Admission.REFUSED) {
            log.info("slack - button press {} by {} refused: not allowed to talk to the agent; the question stays open", p.id(), p.user());
            web.postEphemeral(p.channel(), p.user(), NOT_ALLOWED, p.threadTs());
        }
        return note(p);
    }

    /**
     * The gateway's answer to a press: a decision updates the question, anything else goes to the presser alone. Empty
     * when {@code m} answers no press being handled (it is sent as usual).
     */
    Optional<SendResult> answer(OutboundMessage m) {
        Press p = m.correlationId() == null ? null : pending.remove(m.correlationId());
        if (p == null) {
            return Optional.empty();
        }
        String text = m.text().strip();
        if (!(text.startsWith("\u2705") || text.startsWith("\u274c"))) {
            return web.postEphemeral(p.channel(), p.user(), SlackMrkdwn.render(m.text()), p.threadTs())
                    ? Optional.of(SendResult.sent(null)) : Optional.empty();
        }
        try {
            answered.note(p.questionId());
        } catch (RuntimeException e) {
            log.warn("slack - could not keep question {} as answered ({}); a second press on it is answered by the gateway", p.questionId(),
                    e.toString());
        }
        String verdict = String.format(VERDICTS.get(p.command()), "<@" + p.user() + ">");
        String question = p.question().lines().filter(l -> !l.contains("/approve")).reduce((x, y) -> x + "\n" + y).orElse("").strip();
        if (question.length() > MAX_SECTION) {
            question = question.substring(0, MAX_SECTION - 1) + "\u2026";
        }
        ArrayNode blocks = json.createArrayNode();
        if (!question.isEmpty()) {
            blocks.addObject().put("type", "section").putObject("text").put("type", "mrkdwn").put("text", question);
        }
        blocks.addObject().put("type", "context").putArray("elements").addObject().put("type", "mrkdwn").put("text", verdict);
        return Optional.of(web.update(p.channel(), p.ts(), question.isEmpty() ? verdict : question + "\n" + verdict, blocks));
    }

    /** The press in a block_actions payload, or empty when it is not a well-formed press of one of Herald's buttons. */
    Optional<Press> read(JsonNode payload) {
        if (!"block_actions".equals(payload.path("type").asText())) {
            return Optional.empty();
        }
        JsonNode action = payload.path("actions").path(0);
        String command = action.path("value").asText("");
        String actionId = action.path("action_id").asText("");
        String user = PlatformIds.of(payload.path("user").path("id"));
        String channel = PlatformIds.of(payload.path("channel").path("id"));
        if (channel == null) {
            channel = PlatformIds.of(payload.path("container").path("channel_id"));
        }
        JsonNode message = payload.path("message");
        String ts = PlatformIds.of(message.path("ts"));
        if (ts == null) {
            ts = PlatformIds.of(payload.path("container").path("message_ts"));
        }
        String id = PlatformIds.of(payload.path("trigger_id"));
        if (id == null && ts != null && user != null) {
            String actionTs = PlatformIds.of(action.path("action_ts"));
            id = actionTs == null ? null : PlatformIds.clean(user + ":" + actionTs);
        }
        if (!VERDICTS.containsKey(command) || !actionId.startsWith("herald_") || user == null || channel == null || ts == null || id == null) {
            return Optional.empty();
        }
        String threadTs = PlatformIds.of(message.path("thread_ts"));
        SessionSource source = channel.startsWith("D")
                ? new SessionSource(SlackAdapter.PLATFORM, channel, ChatType.DM, user, null, threadTs, null)
                : new SessionSource(SlackAdapter.PLATFORM, channel, ChatType.THREAD, user, null, threadTs != null ? threadTs : ts, null);
        MessageEvent event = new MessageEvent(EventIds.next(), source, command, channel + ":" + ts + ":" + id, null, List.of(),
                MessageEvent.Origin.USER, clock.instant());
        return Optional.of(new Press(id, channel, ts, threadTs, message.path("text").asText(""), command, user, event));
    }

    private Outcome note(Press p) {
        try {
            presses.note(p.id());
        } catch (RuntimeException e) {
            log.warn("slack - could not keep button press {} as handled ({}); a redelivery of it would be answered again", p.id(), e.toString());
        }
        return Outcome.ACK;
    }
}
