package dev.herald.core.side;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.BackgroundChats;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.turn.TurnRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /bg <prompt>}: a background task, a turn in a session of its own on the internal platform {@code background}
 * ({@link BackgroundPlatform}), whose answer comes back to this chat when it is done; {@code /bg} and {@code /status} list
 * the chat's tasks, {@code /bg stop <n>} stops one.
 *
 * <p><b>Durability.</b> The task is an ordinary stored turn, admitted like a platform's message with a dedupe key made from
 * the command's message id: a restart before it starts runs it after the start, one cut off while it runs is resumed as its
 * task (as a scheduled job's run is), and the turn's state machine runs it once. Its answer is recorded and delivered by
 * the outbox to the chat the task's chat id names ({@link BackgroundChats}), redelivered after a restart like any reply.
 */
final class BackgroundCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(BackgroundCommand.class);
    static final String PREFIX = "[Background task ";
    static final int MAX_PROMPT = 4_000;
    /** The chat preference a persona is kept in ({@code /personality}). */
    static final String PERSONA = "personality";

    private final SideCommands.Parts parts;
    private final BackgroundRuns runs;

    BackgroundCommand(SideCommands.Parts parts) {
        this.parts = parts;
        this.runs = new BackgroundRuns(parts.storage().chatPreferences());
    }

    @Override
    public String name() {
        return "bg";
    }

    @Override
    public String help() {
        return "/bg <prompt> | /bg stop <n> - a background task in its own session; its answer comes here when done";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String args = event.commandArgs().strip();
        if (args.isEmpty() || args.equalsIgnoreCase("list")) {
            List<String> lines = statusLines(event, key, admin);
            return lines.isEmpty() ? "No background tasks here. Start one with /bg <prompt>; /bg stop <n> stops one."
                    : String.join("\n", lines);
        }
        String[] words = args.split("\\s+", 2);
        if (words[0].equalsIgnoreCase("stop")) {
            return stop(key, words.length > 1 ? words[1].strip() : "");
        }
        return start(event, key, args);
    }

    @Override
    public List<String> statusLines(MessageEvent event, SessionKey key, boolean admin) {
        List<String> lines = new ArrayList<>();
        for (BackgroundRuns.Run run : runs.list(key)) {
            Optional<TurnRecord> first = parts.turns().find(run.turnId());
            String state = first.map(this::state).orElse(null);
            if (state == null) {
                runs.remove(key, run.number()); // ended, and its answer (if any) was sent: no longer listed
                continue;
            }
            lines.add("Background task " + run.number() + ": " + state + " \u2013 " + prompt(first.get()));
        }
        return lines;
    }

    private String start(MessageEvent event, SessionKey key, String prompt) {
        if (parts.platforms().adapter(BackgroundChats.PLATFORM).isEmpty()) {
            return "Background tasks are not available on this Herald.";
        }
        if (prompt.length() > MAX_PROMPT) {
            return "That task has " + prompt.length() + " characters; a background task takes at most " + MAX_PROMPT + ".";
        }
        int live = statusLines(event, key, false).size();
        if (live >= BackgroundRuns.MAX) {
            return "This chat has " + live + " background tasks already; stop one (/bg stop <n>) or wait for one to finish.";
        }
        int n = runs.take(key);
        SessionSource source = BackgroundChats.source(event.source(), n, Long.toString(parts.clock().millis(), 36));
        SessionKey taskKey;
        try {
            taskKey = SessionKey.of(source, parts.keyPolicy());
        } catch (IllegalArgumentException e) {
            log.info("gateway - /bg refused on {}: the chat's ids cannot name a background session ({})", key, e.getMessage());
            return "Background tasks cannot run for this chat: its id cannot name a session.";
        }
        inheritChoices(key, taskKey);
        String messageId = "bg:" + event.source().platform().id() + ":" + (event.messageId() == null ? EventIds.next() : event.messageId());
        MessageEvent task = new MessageEvent(EventIds.next(), source, PREFIX + n + "] " + prompt, messageId, null, List.of(),
                MessageEvent.Origin.SCHEDULE, parts.clock().instant());
        Admission a = parts.accept().apply(task);
        if (a == Admission.DUPLICATE) {
            return null; // the same command delivered again: its task was started the first time
        }
        if (a == Admission.REFUSED) {
            log.warn("gateway - /bg on {} refused: the platform {} does not let the chat's user in (wire it as a trusted platform)", key,
                    BackgroundChats.PLATFORM);
            return "Background tasks are not available on this Herald.";
        }
        if (a != Admission.ACCEPTED) {
            return SideCommands.notTaken(a);
        }
        parts.turns().findByMessage(BackgroundChats.PLATFORM.id(), messageId)
                .ifPresent(t -> runs.add(key, new BackgroundRuns.Run(n, t.id())));
        log.info("gateway - background task {} of {} started ({} characters)", n, key, prompt.length());
        return "\ud83d\udd19 Background task " + n + " started in a session of its own; its answer comes here when it is done. "
                + "/status lists it; /bg stop " + n + " stops it.";
    }

    /** The task runs with the chat's choices: its /model profile and its persona (the agent's chat preference of that name). */
    private void inheritChoices(SessionKey chat, SessionKey task) {
        parts.storage().modelChoices().chosen(chat).ifPresent(m -> parts.storage().modelChoices().choose(task, m));
        parts.storage().chatPreferences().get(chat, PERSONA).ifPresent(p -> parts.storage().chatPreferences().set(task, PERSONA, p));
    }

    private String stop(SessionKey key, String arg) {
        Optional<BackgroundRuns.Run> run = runs.list(key).stream().filter(r -> Integer.toString(r.number()).equals(arg)).findFirst();
        if (run.isEmpty()) {
            return arg.isEmpty() ? "Usage: /bg stop <n> (the task's number, as /bg lists it)."
                    : "No background task " + (arg.length() <= 12 ? arg : arg.substring(0, 12) + "...") + " here; /bg lists them.";
        }
        runs.remove(key, run.get().number());
        Optional<TurnRecord> first = parts.turns().find(run.get().turnId());
        if (first.isEmpty() || state(first.get()) == null) {
            return "Background task " + run.get().number() + " had already ended.";
        }
        SessionKey task = first.get().sessionKey();
        parts.lanes().takeWaiting(task).forEach(t -> parts.turns().cancel(t.id(), "/bg stop"));
        parts.turns().cancel(first.get().id(), "/bg stop"); // when it has not started (still RECEIVED); else nothing
        parts.lanes().active(task).ifPresent(t -> t.interrupt().raise("stopped by /bg stop"));
        parts.storage().sessions().suspend(task, SuspendReason.STOP_COMMAND); // not resumed after a restart either
        log.info("gateway - background task {} of {} stopped by /bg stop", run.get().number(), key);
        return "\u23f9 Background task " + run.get().number() + " stopped.";
    }

    /** What the task is doing, or null once it has ended (its answer, if any, delivered). */
    private String state(TurnRecord first) {
        SessionKey task = first.sessionKey();
        TurnRecord latest = parts.turns().latestStarted(task).orElse(first);
        return switch (latest.state()) {
            case RECEIVED -> parts.lanes().active(task).isPresent() ? "running" : "waiting to start";
            case RUNNING -> "running";
            case AWAITING_DELIVERY -> "done, its answer on its way";
            case INTERRUPTED -> parts.storage().sessions().find(task).filter(SessionEntry::resumePending).isPresent()
                    ? "cut off, resumes shortly" : null;
            default -> null; // ended: delivered, failed, cancelled, undeliverable
        };
    }

    private static String prompt(TurnRecord first) {
        String text = first.text();
        int end = text.startsWith(PREFIX) ? text.indexOf("] ") : -1;
        String p = end > 0 ? text.substring(end + 2) : text;
        p = p.replace('\n', ' ');
        return p.length() <= 60 ? p : p.substring(0, 60) + "...";
    }
}
