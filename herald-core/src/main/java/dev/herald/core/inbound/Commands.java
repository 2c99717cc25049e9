package dev.herald.core.inbound;

import dev.herald.core.auth.CommandTiers;
import dev.herald.core.Durations;
import dev.herald.core.UserErrors;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.lanes.ActiveTurn;
import dev.herald.core.session.Compactions;
import dev.herald.core.lanes.PendingApprovals;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.transcript.AgentHistory;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slash commands, answered inline: they never wait behind a running turn and never start one
 * (except /queue, which stores a message for later). Unknown commands get a short help line.
 */
public final class Commands {
    private static final Logger log = LoggerFactory.getLogger(Commands.class);
    static final String HELP = String.join("\n",
            "Commands:",
            "/new [name] or /reset - start a fresh session (named, when a name is given)",
            "/title <name> - name this conversation",
            "/sessions [words] - your conversations in this chat, newest first (matching the words)",
            "/resume <number|title> - go back to one of them; the current one stays listed",
            "/retry - ask your last message again; the old answer is set aside",
            "/undo - take back your last message and its answer",
            "/stop - stop the running turn; your next message starts a fresh session",
            "/status - this session and the gateway",
            "/queue <text> - queue a message without interrupting the running turn",
            "/approve [always] or /deny - answer a tool approval question",
            "/compress [focus words] - summarize the conversation so far to free context, keeping what the words name",
            "/model [name] - list the models, or switch this chat's",
            "/usage [footer on|off] - model tokens (and cost, where priced) of the last answer, this conversation and today; footer: under every answer",
            "/whoami - your platform, ids and tier, and the commands you may run",
            "/restart - restart the gateway",
            "/sethome - make this chat the home channel for gateway notices",
            "/help - this list");

    /**
     * Every name the gateway answers itself, aliases included (commands added with {@link #add} come on top): what a
     * platform whose clients keep {@code /} for themselves (Slack's and Mattermost's {@code !status}) reads as a command.
     */
    public static final java.util.Set<String> NAMES = java.util.Set.of("new", "reset", "title", "sessions", "resume", "retry", "undo",
            "usage", "whoami", "stop", "status", "queue", "q", "restart", "approve", "deny", "compress", "model", "models", "sethome", "set-home",
            "help", "commands", "start");

    private final Storage storage;
    private final Turns turns;
    private final SessionLanes lanes;
    private final Outbox outbox;
    private final Authorizer authorizer;
    private final GatewayControl control;
    private final Clock clock;
    private final PendingApprovals approvals;
    private final Agent agent;
    private final Compactions compactions;
    private final GatewayMetrics metrics;
    private final ModelCommand models;
    private final ConversationCommands conversations;
    private final UsageCommand usage;
    private final CommandTiers tiers;
    private final java.util.Map<String, CommandExtension> extensions = new java.util.concurrent.ConcurrentHashMap<>();

    public Commands(Storage storage, Turns turns, SessionLanes lanes, Outbox outbox, Authorizer authorizer, GatewayControl control, Clock clock,
            PendingApprovals approvals, Agent agent, GatewayMetrics metrics, CommandTiers tiers) {
        this.storage = storage;
        this.tiers = java.util.Objects.requireNonNull(tiers, "tiers");
        this.turns = turns;
        this.lanes = lanes;
        this.outbox = outbox;
        this.authorizer = authorizer;
        this.control = control;
        this.clock = clock;
        this.approvals = approvals;
        this.agent = agent;
        this.compactions = new Compactions(storage.transcripts(), clock);
        this.metrics = metrics;
        this.models = new ModelCommand(agent, storage.modelChoices());
        this.conversations = new ConversationCommands(storage, control, outbox, clock);
        this.usage = new UsageCommand(storage, turns, agent, clock);
    }

    /** Adds a command answered elsewhere (such as /schedule). */
    public void add(CommandExtension command) {
        if (extensions.putIfAbsent(command.name(), command) != null) {
            throw new IllegalArgumentException("gateway - the command /" + command.name() + " is added twice");
        }
    }

    /** Answers the command in {@code event} (already authorized). */
    void handle(MessageEvent event, SessionKey key) {
        String name = event.command();
        boolean admin = authorizer.isAdmin(event.source());
        if (isCommand(name) && !tiers.allows(name, admin)) {
            log.info("gateway - /{} refused on {}: the sender is not an admin and commands.users does not list it", name, key);
            outbox.send(event.source().platform(), event.source().target(), CommandTiers.refusal(name), MessageKind.COMMAND_RESPONSE,
                    event.messageId(), event.eventId());
            return;
        }
        String answer = switch (name) {
            case "new", "reset" -> reset(event, key);
            case "stop" -> stop(key);
            case "title" -> conversations.title(event, key);
            case "sessions" -> conversations.list(key, event.commandArgs());
            case "resume" -> conversations.resume(event, key);
            case "retry" -> conversations.retry(event, key);
            case "undo" -> conversations.undo(event, key);
            case "usage" -> usage.handle(event, key);
            case "whoami" -> WhoamiCommand.answer(event, admin, extensions.keySet(), tiers);
            case "status" -> status(event, key);
            case "queue", "q" -> queue(event);
            case "restart" -> restart(event);
            case "approve" -> answer(key, "always".equalsIgnoreCase(event.commandArgs())
                    ? ApprovalDecision.APPROVED_ALWAYS : ApprovalDecision.APPROVED_ONCE);
            case "deny" -> answer(key, ApprovalDecision.DENIED);
            case "compress" -> compress(event, key);
            case "model", "models" -> models.handle(key, event.commandArgs());
            case "sethome", "set-home" -> setHome(event);
            case "help", "commands", "start" -> help(admin);
            default -> {
                Optional<CommandExtension> x = extension(name); // its answer may be null: it answers later, or a turn does
                yield x.isPresent() ? x.get().handle(event, key, admin) : "Unknown command /" + name + ". Send /help for the list.";
            }
        };
        if (answer != null) {
            outbox.send(event.source().platform(), event.source().target(), answer, MessageKind.COMMAND_RESPONSE,
                    event.messageId(), event.eventId());
        }
    }

    /** The extension answering {@code /name}: the one of that name, else the first that claims it ({@link CommandExtension#answers}). */
    private Optional<CommandExtension> extension(String name) {
        CommandExtension named = extensions.get(name);
        return named != null ? Optional.of(named) : extensions.values().stream().filter(x -> x.answers(name)).findFirst();
    }

    /** Whether {@code name} is a command answered here (the gateway's or an added one). */
    private boolean isCommand(String name) {
        return NAMES.contains(name) || extensions.containsKey(name);
    }

    /**
     * The gateway's commands, then those added (before the last line): to a user only those their tier may run (and
     * which ones are for admins), to an admin all, those only admins may run marked.
     */
    private String help(boolean admin) {
        List<String> lines = new java.util.ArrayList<>(HELP.lines().toList());
        String last = lines.removeLast();
        extensions.values().forEach(x -> lines.add(x.help()));
        lines.add(last);
        StringBuilder sb = new StringBuilder(lines.getFirst());
        java.util.Set<String> adminOnly = new java.util.TreeSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String command = line.substring(1).split("\\s", 2)[0];
            boolean forUsers = tiers.allows(command, false);
            if (!forUsers) {
                adminOnly.add("/" + CommandTiers.canonical(command));
            }
            if (admin || forUsers) {
                sb.append('\n').append(line).append(forUsers || !admin ? "" : " (admins only)");
            }
        }
        if (!admin && !adminOnly.isEmpty()) {
            sb.append("\nFor admins only: ").append(String.join(" ", adminOnly));
        }
        return sb.toString();
    }

    /** {@code /new [name]}: the old transcript keeps its title (listed by /sessions); the new one gets the name, or none. */
    private String reset(MessageEvent event, SessionKey key) {
        String name = event.commandArgs().strip();
        String refusal = ConversationCommands.badTitle(name);
        if (refusal != null) {
            return refusal;
        }
        lanes.active(key).ifPresent(t -> t.interrupt().raise("session reset"));
        SessionEntry fresh = storage.sessions().reset(key, event.source());
        storage.sessions().rename(key, name.isEmpty() ? null : name);
        log.info("gateway - session {} reset by its user; new session id {}", key, fresh.sessionId());
        return name.isEmpty() ? "\u2728 New session started." : "\u2728 New session started: \u201c" + name + "\u201d.";
    }

    private String stop(SessionKey key) {
        Optional<ActiveTurn> running = lanes.active(key);
        List<TurnRecord> waiting = lanes.takeWaiting(key);
        for (TurnRecord t : waiting) {
            turns.cancel(t.id(), "/stop");
        }
        running.ifPresent(t -> t.interrupt().raise("stopped by /stop"));
        boolean suspended = storage.sessions().suspend(key, SuspendReason.STOP_COMMAND);
        if (suspended) {
            metrics.sessionsSuspended(1, SuspendReason.STOP_COMMAND.code());
        }
        log.info("gateway - /stop on {}: {} turn interrupted, {} queued cancelled, suspended={}",
                key, running.isPresent() ? 1 : 0, waiting.size(), suspended);
        if (running.isEmpty() && waiting.isEmpty()) {
            return "Nothing was running. Your next message starts a fresh session.";
        }
        return "\u23f9 Stopped. Your next message starts a fresh session.";
    }

    /** This session and the gateway; the model's endpoint only for admins, its name for everyone else. */
    private String status(MessageEvent event, SessionKey key) {
        GatewayStatus g = control.status();
        Optional<SessionEntry> entry = storage.sessions().find(key);
        StringBuilder sb = new StringBuilder();
        if (entry.isEmpty()) {
            sb.append("Session: none yet (your first message starts one)\n");
        } else {
            SessionEntry e = entry.get();
            sb.append("Session: ").append(e.sessionId()).append('\n');
            sb.append("State: ").append(e.suspended()
                    ? "suspended: " + e.suspendReason().description() + " (next message starts fresh)" : "active").append('\n');
            if (e.resumePending()) {
                sb.append("Resume: pending (").append(e.effectiveResumeReason().code());
                if (e.lastResumeMarkedAt() != null) {
                    sb.append(", marked ").append(Durations.age(Duration.between(e.lastResumeMarkedAt(), clock.instant()))).append(" ago");
                }
                sb.append(")\n");
            } else {
                sb.append("Resume: none\n");
            }
            sb.append("Tokens: ").append(e.inputTokens()).append(" in / ").append(e.outputTokens()).append(" out");
            Optional<TurnRecord> last = turns.latestStarted(key);
            last.filter(t -> t.inputTokens() > 0 || t.outputTokens() > 0).ifPresent(t -> sb.append(" (last turn: ")
                    .append(t.inputTokens()).append(" in / ").append(t.outputTokens()).append(" out)"));
            sb.append('\n');
            last.ifPresent(t -> deliveryLine(sb, t));
        }
        sb.append("Turn: ").append(lanes.active(key).isPresent() ? "running" : "idle");
        int waiting = lanes.waiting(key);
        if (waiting > 0) {
            sb.append(", ").append(waiting).append(" queued");
        }
        sb.append('\n');
        var question = approvals.open(key);
        if (question != null) {
            sb.append("Waiting for approval: ").append(question.toolName()).append(" (/approve or /deny)\n");
        }
        sb.append("Gateway: ").append(g.state().name().toLowerCase(java.util.Locale.ROOT)).append(", ")
                .append(g.activeTurns()).append(" active turn(s), ")
                .append(authorizer.isAdmin(event.source()) ? "agent " + g.agent() : "model " + agent.modelName());
        if (!g.autoResume()) {
            sb.append("\nAuto-resume: off for this boot (crash-loop breaker)");
        }
        for (CommandExtension x : extensions.values()) {
            x.statusLines(event, key, authorizer.isAdmin(event.source())).forEach(line -> sb.append('\n').append(line));
        }
        return sb.toString();
    }

    /** A line about the last reply, only when it did not reach the chat. */
    private static void deliveryLine(StringBuilder sb, TurnRecord t) {
        if (t.state() == TurnState.UNDELIVERABLE) {
            sb.append("Last reply: could not be delivered (").append(t.deliveryError()).append(")\n");
        } else if (t.state() == TurnState.AWAITING_DELIVERY && t.deliveryAttempts() > 0) {
            sb.append("Last reply: not delivered yet (").append(t.deliveryAttempts()).append(" failed attempt(s), last: ")
                    .append(t.deliveryError()).append("); Herald keeps trying\n");
        }
    }

    private String queue(MessageEvent event) {
        String text = event.commandArgs();
        if (text.isEmpty()) {
            return "Usage: /queue <text>";
        }
        MessageEvent queued = new MessageEvent(EventIds.next(), event.source(), text, null,
                event.messageId(), event.media(), event.origin(), event.receivedAt());
        return switch (control.enqueue(queued)) {
            case ACCEPTED -> "Queued. It runs after the current turn.";
            case REJECTED_STOPPING -> "The gateway is stopping; send it again once it is back.";
            case REJECTED_UNAVAILABLE -> UserErrors.storeUnavailable();
            default -> "Not queued.";
        };
    }

    private String restart(MessageEvent event) {
        control.requestRestart(event.source());
        return "\u267b\ufe0f Restarting the gateway. I will confirm here when it is back.";
    }

    private String setHome(MessageEvent event) {
        control.setHome(event.source());
        return "\ud83c\udfe0 This chat is now the home channel for " + event.source().platform()
                + ": gateway notices (restarts, shutdowns) come here.";
    }

    private String answer(SessionKey key, ApprovalDecision decision) {
        if (!approvals.answer(key, decision)) {
            return "Nothing is waiting for approval.";
        }
        return switch (decision) {
            case APPROVED_ALWAYS -> "\u2705 Approved (and from now on for this tool in this session).";
            case APPROVED_ONCE -> "\u2705 Approved.";
            default -> "\u274c Denied.";
        };
    }

    /** {@code /compress [focus words]}: the focus words go to the summary prompt; the answer says what was compressed. */
    private String compress(MessageEvent event, SessionKey key) {
        String focus = event.commandArgs().strip();
        if (focus.length() > MAX_FOCUS) {
            return "The focus of /compress is at most " + MAX_FOCUS + " characters; this one has " + focus.length() + ".";
        }
        boolean started = control.runInLane(key, () -> {
            SessionEntry e = storage.sessions().getOrCreate(key, event.source());
            var history = AgentHistory.from(storage.transcripts().load(e.sessionId()));
            String msg = agent.compact(key.value(), history, focus, new Interrupt())
                    .map(c -> compressed(history.size(), c, focus, compactions.apply(e.sessionId(), c)))
                    .orElse("Nothing to compress yet.");
            outbox.send(event.source().platform(), event.source().target(), msg, MessageKind.COMMAND_RESPONSE,
                    event.messageId(), event.eventId());
        });
        return started ? null : "A turn is running; send /compress again when it has finished.";
    }

    /** The longest focus {@code /compress} takes, in characters. */
    static final int MAX_FOCUS = 500;

    /** What {@code /compress} did: messages (and estimated tokens) before and after, and the focus it kept. */
    static String compressed(int before, dev.herald.core.agent.Compaction c, String focus, String child) {
        StringBuilder sb = new StringBuilder("\ud83d\udddc Compressed ").append(before).append(" message(s)");
        if (c.tokensBefore() > 0) {
            sb.append(String.format(java.util.Locale.ROOT, " (~%,d tokens)", c.tokensBefore()));
        }
        sb.append(" to ").append(c.kept().size() + 1);
        if (c.tokensAfter() > 0) {
            sb.append(String.format(java.util.Locale.ROOT, " (~%,d tokens)", c.tokensAfter()));
        }
        sb.append(": a summary of ").append(c.summarizedMessages()).append(" and the ").append(c.kept().size()).append(" most recent");
        if (!focus.isEmpty()) {
            sb.append(", focused on \u201c").append(focus).append('\u201d');
        }
        return sb.append(". The conversation continues in session ").append(child).append('.').toString();
    }

}
