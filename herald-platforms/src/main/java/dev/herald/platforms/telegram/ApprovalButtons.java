package dev.herald.platforms.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.SendResult;
import dev.herald.core.session.SessionSource;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approval questions as an inline keyboard. A prompt that asks for {@code /approve} goes out with three buttons
 * whose {@code callback_data} is the command; a press arrives as a {@code callback_query} and becomes that command,
 * sent by the presser in the prompt's chat (and topic), so the gateway decides who may approve and whether anything
 * is waiting. The gateway's answer to a press comes back here: a decision (the gateway's answers start with
 * {@code ✅} or {@code ❌}) is shown by editing the prompt, buttons removed, with who decided; any other answer
 * ("nothing is waiting", a refusal) is sent as a reply to the prompt.
 *
 * <p>The press's message id is {@code cb<callback id>:<chat>:<prompt message>}: Telegram redelivers an unconfirmed
 * press with the same callback id, so the gateway's durable dedupe answers it once, even after a restart; the tail is
 * the prompt, which the gateway's answer replies to. Every press is answered ({@code answerCallbackQuery}) once the
 * gateway took it, which ends the spinner on the presser's button. A press on a prompt this process already saw
 * decided is answered "already decided" and not handed over.
 *
 * <p>A question waits in the memory of the process that asked it (the gateway does not keep open questions over a
 * restart, nor does it keep which commands it answered), and that process sent the prompt. So a press on a prompt
 * this adapter did not send cannot decide anything: it is answered "closed", its buttons are removed, and it is not
 * handed over. That is what keeps a press that Telegram delivers again after a restart from being answered twice.
 * What else is kept in memory (who pressed, the prompt's text) only makes the edit richer.
 */
final class ApprovalButtons {
    private static final Logger log = LoggerFactory.getLogger(ApprovalButtons.class);
    /** The buttons, by label, and the commands they send. */
    static final Map<String, String> BUTTONS = buttons();
    /** An empty inline keyboard: the buttons removed. */
    static final Map<String, Object> NO_BUTTONS = Map.of("inline_keyboard", List.of());
    private static final Pattern CALLBACK_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String PRESS = "cb";
    private static final int REMEMBERED = 1_000;

    /** A press handed to the gateway: who pressed, and the prompt as Telegram showed it. */
    private record Press(String presser, String chatId, long promptId, String promptText) {
    }

    private final Platform platform;
    private final BotApi api;
    private final Map<String, Boolean> prompts = java.util.Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    });
    private final Map<String, Press> presses = new ConcurrentHashMap<>();
    private final Map<String, String> toasts = new ConcurrentHashMap<>();
    private final Map<String, String> decided = new ConcurrentHashMap<>();
    /** Presses on prompts of an earlier process, by callback id: their prompt's buttons are removed when they are answered. */
    private final Map<String, String> stale = new ConcurrentHashMap<>();

    ApprovalButtons(Platform platform, BotApi api) {
        this.platform = platform;
        this.api = api;
    }

    /** The prompt {@code messageId} in {@code chatId} went out with the buttons. */
    void sent(String chatId, String messageId) {
        if (messageId != null) {
            prompts.put(chatId + ":" + messageId, Boolean.TRUE);
        }
    }

    private static Map<String, String> buttons() {
        Map<String, String> b = new LinkedHashMap<>();
        b.put("Approve", "/approve");
        b.put("Always", "/approve always");
        b.put("Deny", "/deny");
        return java.util.Collections.unmodifiableMap(b);
    }

    /** The inline keyboard for {@code m}: the approval buttons for a prompt that asks for /approve, else null. */
    static Map<String, Object> keyboardFor(OutboundMessage m) {
        if (m.kind() != MessageKind.PROMPT || !m.text().contains("/approve")) {
            return null;
        }
        List<Map<String, String>> row = BUTTONS.entrySet().stream()
                .map(e -> Map.of("text", e.getKey(), "callback_data", e.getValue())).toList();
        return Map.of("inline_keyboard", List.of(row));
    }

    /** The command a {@code callback_query} update asks for, as the presser's message; empty for any other button. */
    Optional<MessageEvent> event(JsonNode update, Instant receivedAt) {
        JsonNode q = update.path("callback_query");
        String queryId = q.path("id").asText("");
        if (!CALLBACK_ID.matcher(queryId).matches()) {
            return Optional.empty(); // nothing to answer it with either
        }
        String command = q.path("data").asText("");
        JsonNode prompt = q.path("message");
        String chatId = Normaliser.id(prompt.path("chat").path("id"));
        Long promptNumber = TelegramAdapter.number(Normaliser.id(prompt.path("message_id")));
        String userId = Normaliser.userId(q);
        if (!BUTTONS.containsValue(command)) {
            remember(toasts, queryId, "This button is not one of Herald's.");
            return Optional.empty();
        }
        if (chatId == null || promptNumber == null || userId == null || prompt.path("date").asLong(0) == 0) {
            remember(toasts, queryId, "This question is too old for its buttons; type " + command + " instead.");
            return Optional.empty();
        }
        String promptKey = chatId + ":" + promptNumber;
        String decision = decided.get(promptKey);
        if (decision != null) {
            remember(toasts, queryId, "Already decided: " + decision);
            return Optional.empty();
        }
        if (!prompts.containsKey(promptKey)) {
            remember(toasts, queryId, "This question is closed (Herald restarted since it was asked); nothing was decided.");
            remember(stale, queryId, promptKey);
            return Optional.empty();
        }
        String label = BUTTONS.entrySet().stream().filter(e -> e.getValue().equals(command)).findFirst().orElseThrow().getKey();
        remember(toasts, queryId, label + ": received");
        String presser = Normaliser.userName(q);
        String messageId = PRESS + queryId + ":" + promptKey;
        remember(presses, messageId, new Press(presser == null ? userId : presser, chatId, promptNumber,
                prompt.path("text").asText("")));
        SessionSource source = new SessionSource(platform, chatId, Normaliser.chatType(prompt.path("chat").path("type").asText()), userId,
                presser, Normaliser.thread(prompt), Normaliser.chatName(prompt.path("chat")));
        return Optional.of(new MessageEvent(EventIds.next(), source, command, messageId, null, List.of(), MessageEvent.Origin.USER,
                receivedAt));
    }

    /**
     * Ends the spinner of a press in {@code update} (one the gateway took, or passed over), and takes the buttons off a
     * closed question; failures are only logged.
     */
    void answer(JsonNode update) {
        String queryId = update.path("callback_query").path("id").asText("");
        if (!CALLBACK_ID.matcher(queryId).matches()) {
            return;
        }
        String toast = toasts.remove(queryId);
        String closed = stale.remove(queryId);
        if (closed != null) {
            removeButtons(closed.substring(0, closed.lastIndexOf(':')), TelegramAdapter.number(closed));
        }
        try {
            BotApi.Answer a = api.answerCallbackQuery(queryId, toast == null ? "Received" : toast);
            if (!a.ok()) {
                log.debug("{} - a button press was not answered ({})", platform, a.problem());
            }
        } catch (IOException e) {
            log.debug("{} - a button press was not answered: {}", platform, api.describe(e));
        }
    }

    /**
     * The gateway's answer to a press, when it is a decision: the prompt edited to show it and who decided, buttons
     * removed. Empty when {@code m} answers no press, is no decision, or the edit failed (then the answer goes out as a
     * reply, the buttons removed if possible).
     */
    Optional<SendResult> finish(OutboundMessage m) {
        String replyTo = m.replyToMessageId();
        if (m.kind() != MessageKind.COMMAND_RESPONSE || replyTo == null || !replyTo.startsWith(PRESS) || m.file() != null) {
            return Optional.empty();
        }
        String text = m.text().strip();
        if (!text.startsWith("\u2705") && !text.startsWith("\u274c")) {
            return Optional.empty();
        }
        String[] parts = replyTo.split(":");
        Long promptId = TelegramAdapter.number(replyTo);
        if (parts.length != 3 || promptId == null) {
            return Optional.empty();
        }
        String promptKey = parts[1] + ":" + promptId;
        Press press = presses.remove(replyTo);
        remember(decided, promptKey, press == null ? text : text + " (" + press.presser() + ")");
        prompts.remove(promptKey);
        try {
            if (press != null) {
                String shown = "Decided by " + press.presser() + ": " + text;
                String edited = question(press.promptText(), TelegramAdapter.MAX_TEXT - shown.length() - 2) + "\n\n" + shown;
                BotApi.Answer a = api.editMessageText(press.chatId(), press.promptId(), edited, null, NO_BUTTONS);
                if (a.ok()) {
                    return Optional.of(SendResult.sent(promptKey));
                }
                log.info("{} - the approval question was not edited ({}); the decision is sent as a reply", platform, a.problem());
            }
        } catch (IOException e) {
            log.info("{} - the approval question was not edited ({}); the decision is sent as a reply", platform, api.describe(e));
        }
        removeButtons(parts[1], promptId);
        return Optional.empty();
    }

    private void removeButtons(String chatId, long promptId) {
        try {
            BotApi.Answer a = api.editMessageReplyMarkup(chatId, promptId, NO_BUTTONS);
            if (!a.ok()) {
                log.debug("{} - the approval buttons were not removed ({})", platform, a.problem());
            }
        } catch (IOException e) {
            log.debug("{} - the approval buttons were not removed: {}", platform, api.describe(e));
        }
    }

    /** The question without its "Reply /approve ..." line (the buttons answered it), cut to {@code max} characters. */
    private static String question(String prompt, int max) {
        String q = prompt.lines().filter(l -> !l.startsWith("Reply /approve")).reduce((a, b) -> a + "\n" + b).orElse("").strip();
        return q.length() <= max ? q : q.substring(0, Math.max(0, max - 1)) + "\u2026";
    }

    private static <V> void remember(Map<String, V> map, String key, V value) {
        if (map.size() >= REMEMBERED) {
            map.clear(); // an unbounded chat must not grow this; forgetting only makes later edits plainer
        }
        map.put(key, value);
    }
}
