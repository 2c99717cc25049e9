package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.ScheduleException;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.schedule.Text;
import dev.herald.core.session.SessionSource;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * {@code schedule}: the agent manages scheduled tasks of the current chat: create, list, pause, resume,
 * delete. A created job runs in this chat as the person the agent is talking to, exactly as if they had
 * typed {@code /schedule add}; {@link Schedules} holds the rules (who may change what).
 *
 * <p>A job may name a model profile and the tools its runs may use ({@code model}, {@code tools}); tools this chat's
 * platform does not offer are left out ({@link Schedules}), so a job never reaches further than the chat.
 *
 * <p>Creating a job is dangerous: it makes the agent act later, unattended, on this person's behalf, so it
 * asks for approval like {@code shell} does, showing the schedule, the zone, its model and tools, and the prompt in full.
 * Listing, pausing, resuming and deleting this chat's own jobs are not dangerous.
 */
public final class ScheduleTool implements Tool {
    /** The tool's name, for tool lists in the configuration. */
    public static final String NAME = "schedule";
    private static final JsonNode SCHEMA = withStringItems(Args.schema(new String[] {"action"},
            "action", "string", "one of: create, list, pause, resume, delete",
            "schedule", "string", "for create: a cron expression such as \"0 9 * * 1-5\" (minute hour day month weekday), "
                    + "\"every 30m\", \"in 20m\", \"at 09:00\" or \"at 2026-12-24T09:00\"",
            "prompt", "string", "for create: what you will be asked at each run (write it as an instruction to yourself)",
            "time_zone", "string", "for create: an IANA time zone such as Europe/Berlin; default: Herald's",
            "misfire", "string", "for create: run_once (default: one catch-up run after downtime) or skip",
            "model", "string", "for create, optional: the model profile its runs use (default: this chat's model)",
            "tools", "array", "for create, optional: the only tools its runs may use, by name ([] for none; default: this chat's tools)",
            "id", "string", "for pause, resume and delete: the job's id as list shows it"), "tools");

    private final Schedules schedules;
    private final Function<String, Optional<SessionSource>> chatOfScope;
    private final Predicate<SessionSource> admin;

    /**
     * @param chatOfScope the chat and user a turn's tool scope (its session key) belongs to
     * @param admin       whether that user is an admin of their platform
     */
    public ScheduleTool(Schedules schedules, Function<String, Optional<SessionSource>> chatOfScope, Predicate<SessionSource> admin) {
        this.schedules = schedules;
        this.chatOfScope = chatOfScope;
        this.admin = admin;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Scheduled tasks of this chat: create one (you will be asked its prompt at each run and your answer is sent here), "
                + "list them with their next run and last result, pause, resume or delete one by id. Creating one needs the user's "
                + "approval.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return action(args).equals("create") ? Danger.because("schedules a task that runs later without anyone present") : Danger.NONE;
    }

    @Override
    public String summarize(JsonNode args) {
        String action = action(args);
        return "schedule " + action + (action.equals("create") ? " " + Texts.line(Args.string(args, "schedule", ""), 60)
                : args.has("id") ? " " + Texts.line(Args.string(args, "id", ""), 40) : "");
    }

    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        if (!action(args).equals("create")) {
            return Tool.super.approvalText(args, context);
        }
        String zone = Args.string(args, "time_zone", "");
        Optional<List<String>> tools = tools(args);
        String text = "Schedule a task in this chat: " + Args.string(args, "schedule", "?")
                + (zone.isBlank() ? " (" + schedules.defaultZone().getId() + ")" : " (" + zone + ")")
                + ", misfire " + Args.string(args, "misfire", "run_once")
                + optional(args, "model").map(m -> ", model " + m).orElse("")
                + tools.map(t -> ", tools " + (t.isEmpty() ? "none" : String.join(", ", t))).orElse("")
                + ". At each run the agent is asked:\n"
                + Args.string(args, "prompt", "");
        return TooLongToApprove.check(text, "scheduled task", APPROVAL_LIMIT);
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        Optional<SessionSource> chat = chatOfScope.apply(context.scope());
        if (chat.isEmpty()) {
            return ToolResult.error("scheduled tasks belong to a chat, and this conversation has none (a stateless API call)");
        }
        SessionSource who = chat.get();
        boolean isAdmin = admin.test(who);
        try {
            return switch (action(args)) {
                case "create" -> {
                    Optional<List<String>> tools = tools(args);
                    Job job = schedules.create(new Schedules.Draft(Args.string(args, "schedule"), Args.string(args, "prompt"),
                            optional(args, "time_zone"), optional(args, "misfire").map(Misfire::of), Optional.empty(),
                            optional(args, "model"), tools), who, isAdmin, Definer.AGENT);
                    List<String> dropped = tools.map(t -> t.stream().filter(n -> !job.tools().contains(n)).distinct().toList())
                            .orElse(List.of());
                    yield ToolResult.ok("Created job " + job.id() + ": " + job.schedule().text() + " (" + job.schedule().zone().getId()
                            + ")" + (job.hasOptions() ? ", " + Text.options(job) : "")
                            + (dropped.isEmpty() ? "" : " (left out, not offered in this chat: " + String.join(", ", dropped) + ")")
                            + ", next run " + Text.next(job) + ". The user can stop it with /schedule pause " + job.id() + ".");
                }
                case "list" -> ToolResult.ok(list(schedules.forChat(who)));
                case "pause" -> ToolResult.ok("Paused " + schedules.pause(Args.string(args, "id"), who, isAdmin).id() + ".");
                case "resume" -> ToolResult.ok("Resumed; next run " + Text.next(schedules.resume(Args.string(args, "id"), who, isAdmin)) + ".");
                case "delete" -> ToolResult.ok("Deleted " + schedules.delete(Args.string(args, "id"), who, isAdmin).id() + ".");
                default -> ToolResult.error("unknown action '" + action(args) + "'; use create, list, pause, resume or delete");
            };
        } catch (ScheduleException | IllegalArgumentException e) {
            return ToolResult.error(e.getMessage());
        }
    }

    private static String list(List<Job> jobs) {
        if (jobs.isEmpty()) {
            return "This chat has no scheduled tasks.";
        }
        StringBuilder sb = new StringBuilder();
        jobs.forEach(j -> sb.append(Text.line(j)).append('\n'));
        return sb.toString().stripTrailing();
    }

    private static String action(JsonNode args) {
        return Args.string(args, "action", "").strip().toLowerCase(Locale.ROOT);
    }

    /** {@code tools} as names: an array, or (from a model that sends text) a comma-separated string; empty when not given. */
    private static Optional<List<String>> tools(JsonNode args) {
        JsonNode t = args.get("tools");
        if (t == null || t.isNull()) {
            return Optional.empty();
        }
        List<String> names = new java.util.ArrayList<>();
        if (t.isArray()) {
            t.forEach(n -> names.add(n.asText().strip()));
        } else {
            String text = t.asText().strip();
            if (!text.equalsIgnoreCase("none")) {
                names.addAll(java.util.Arrays.stream(text.split(",")).map(String::strip).toList());
            }
        }
        return Optional.of(names.stream().filter(n -> !n.isEmpty()).toList());
    }

    private static JsonNode withStringItems(com.fasterxml.jackson.databind.node.ObjectNode schema, String arrayField) {
        ((com.fasterxml.jackson.databind.node.ObjectNode) schema.get("properties").get(arrayField)).putObject("items").put("type", "string");
        return schema;
    }

    private static Optional<String> optional(JsonNode args, String name) {
        return Optional.ofNullable(Args.string(args, name, null)).filter(s -> !s.isBlank());
    }
}
