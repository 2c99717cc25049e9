package dev.herald.core.schedule;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code /schedule}: scheduled tasks from a chat.
 *
 * <pre>
 * /schedule add "0 9 * * 1-5" Summarise my inbox      cron (5 fields, quoted or not), in the default zone
 * /schedule add every 30m tz=Europe/Berlin Check the build
 * /schedule add in 20m Remind me to stretch              one-shot; also: at 2026-12-24T09:00, at 09:00
 * /schedule add at 09:00 to=telegram:-100123 ...         admins only: another chat (or to=log)
 * /schedule add every 1h model=fast tools=http_get ...   a model profile, only these tools (tools=none: no tools)
 * /schedule list [all]                                   this chat's jobs (admins: all with "all")
 * /schedule pause|resume|delete ID
 * </pre>
 * Options after the schedule: {@code tz=<zone>}, {@code misfire=run_once|skip}, {@code to=<target>}, {@code model=<profile>},
 * {@code tools=<name>,<name>} (or {@code tools=none}); tools this chat's platform does not offer are left out, and the
 * reply says which.
 */
public final class ScheduleCommand implements CommandExtension {
    static final String USAGE = String.join("\n",
            "Usage:",
            "/schedule add \"0 9 * * 1-5\" <what to do> - a cron schedule (minute hour day month weekday)",
            "/schedule add every 30m <what to do> - also: in 20m, at 09:00, at 2026-12-24T09:00",
            "  options before the text: tz=Europe/Berlin, misfire=skip, to=<platform>:<chat> (admins),",
            "  model=<profile> (see /model), tools=read_file,http_get (only these; tools=none for none)",
            "/schedule list - this chat's jobs",
            "/schedule pause|resume|delete <id>");
    private static final int STATUS_LINES = 5;

    private final Schedules schedules;

    public ScheduleCommand(Schedules schedules) {
        this.schedules = schedules;
    }

    @Override
    public String name() {
        return "schedule";
    }

    @Override
    public String help() {
        return "/schedule add|list|pause|resume|delete - scheduled tasks in this chat";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String args = event.commandArgs();
        int space = args.indexOf(' ');
        String action = (space < 0 ? args : args.substring(0, space)).toLowerCase(Locale.ROOT);
        String rest = space < 0 ? "" : args.substring(space + 1).strip();
        try {
            return switch (action) {
                case "add", "new", "create" -> add(rest, event.source(), admin);
                case "list", "ls" -> list(event.source(), admin && rest.equalsIgnoreCase("all"));
                case "pause" -> "\u23f8 Paused " + schedules.pause(id(rest), event.source(), admin).id() + ".";
                case "resume" -> resumed(schedules.resume(id(rest), event.source(), admin));
                case "delete", "remove", "rm" -> "\ud83d\uddd1 Deleted " + schedules.delete(id(rest), event.source(), admin).id() + ".";
                case "", "help" -> USAGE;
                default -> "Unknown /schedule action '" + action + "'.\n" + USAGE;
            };
        } catch (ScheduleException e) {
            return e.getMessage();
        }
    }

    @Override
    public List<String> statusLines(MessageEvent event, SessionKey key, boolean admin) {
        List<Job> here = schedules.forChat(event.source());
        if (here.isEmpty()) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        lines.add("Scheduled here: " + here.size() + " job(s)");
        here.stream().limit(STATUS_LINES).forEach(j -> lines.add("  " + j.id() + ": next " + Text.next(j) + ", last " + Text.last(j)));
        if (here.size() > STATUS_LINES) {
            lines.add("  ... /schedule list shows all");
        }
        return lines;
    }

    private String add(String rest, SessionSource source, boolean admin) {
        Schedules.Draft draft = parse(rest);
        Job job = schedules.create(draft, source, admin, Definer.CHAT);
        List<String> dropped = draft.tools().map(t -> t.stream().filter(n -> !job.tools().contains(n)).distinct().toList()).orElse(List.of());
        return "\u23f0 Scheduled " + job.id() + ": " + job.schedule().text() + " (" + job.schedule().zone().getId() + ")"
                + (job.logOnly() ? ", answers to the log" : draft.target().isPresent() ? ", answers in " + job.target() : "")
                + (job.hasOptions() ? ", " + Text.options(job) : "")
                + (dropped.isEmpty() ? "" : " (left out, not offered on " + job.platform() + ": " + String.join(", ", dropped) + ")")
                + ". Next run " + Text.next(job) + ". /schedule pause " + job.id() + " stops it.";
    }

    private String list(SessionSource source, boolean all) {
        List<Job> jobs = all ? schedules.all() : schedules.forChat(source);
        if (jobs.isEmpty()) {
            return all ? "No scheduled jobs." : "No scheduled jobs in this chat. /schedule add creates one.";
        }
        StringBuilder sb = new StringBuilder(all ? "All scheduled jobs:" : "Scheduled jobs in this chat:");
        jobs.forEach(j -> sb.append('\n').append(Text.line(j)).append(all ? " \u00b7 in " + j.target() : ""));
        return sb.toString();
    }

    private static String resumed(Job job) {
        return job.nextRunAt() == null ? "\u25b6 Resumed " + job.id() + ", but its time has passed: it will not run again."
                : "\u25b6 Resumed " + job.id() + ". Next run " + Text.next(job) + ".";
    }

    private static String id(String rest) {
        String id = rest.strip();
        if (id.isEmpty() || id.contains(" ")) {
            throw new ScheduleException("Name one job by its id, e.g. /schedule pause k3m9xq (/schedule list shows the ids).");
        }
        return id.toLowerCase(Locale.ROOT);
    }

    /** Reads {@code <when> [options] <prompt>} (forms in the class comment). */
    static Schedules.Draft parse(String rest) {
        String t = rest.replace('\u201c', '"').replace('\u201d', '"').strip();
        String when;
        String after;
        if (t.startsWith("\"") || t.startsWith("'")) {
            int close = t.indexOf(t.charAt(0), 1);
            if (close < 0) {
                throw new ScheduleException("The schedule's closing quote is missing.\n" + USAGE);
            }
            when = t.substring(1, close);
            after = t.substring(close + 1);
        } else {
            String[] w = t.split("\\s+");
            int n = words(w);
            when = String.join(" ", java.util.Arrays.copyOf(w, Math.min(n, w.length)));
            after = t.length() > 0 ? String.join(" ", java.util.Arrays.copyOfRange(w, Math.min(n, w.length), w.length)) : "";
        }
        Optional<String> zone = Optional.empty();
        Optional<Misfire> misfire = Optional.empty();
        Optional<String> target = Optional.empty();
        Optional<String> model = Optional.empty();
        Optional<List<String>> tools = Optional.empty();
        String prompt = after.strip();
        while (true) {
            int space = prompt.indexOf(' ');
            String word = space < 0 ? prompt : prompt.substring(0, space);
            int eq = word.indexOf('=');
            String name = eq > 0 ? word.substring(0, eq).toLowerCase(Locale.ROOT) : "";
            String value = eq > 0 ? word.substring(eq + 1) : "";
            switch (name) {
                case "tz", "zone" -> zone = Optional.of(value);
                case "misfire" -> misfire = Optional.of(wrapMisfire(value));
                case "to", "deliver" -> target = Optional.of(value);
                case "model" -> model = Optional.of(value);
                case "tools" -> tools = Optional.of(toolList(value));
                default -> {
                    return new Schedules.Draft(when, prompt, zone, misfire, target, model, tools);
                }
            }
            prompt = space < 0 ? "" : prompt.substring(space + 1).strip();
        }
    }

    /** How many leading words make the schedule when it is not quoted. */
    private static int words(String[] w) {
        if (w.length == 0 || w[0].isEmpty()) {
            throw new ScheduleException("Give a schedule and what to do.\n" + USAGE);
        }
        String first = w[0].toLowerCase(Locale.ROOT);
        if (first.startsWith("@")) {
            return 1;
        }
        if (first.equals("every") || first.equals("in")) {
            return 2;
        }
        if (first.equals("at")) {
            return w.length > 2 && w[1].matches("\\d{4}-\\d{2}-\\d{2}") && w[2].matches("\\d{1,2}:\\d{2}(:\\d{2})?") ? 3 : 2;
        }
        if (Character.isDigit(first.charAt(0)) || first.startsWith("*")) {
            return 5;
        }
        throw new ScheduleException("'" + w[0] + "' does not start a schedule.\n" + USAGE);
    }

    /** {@code a,b} as names; {@code none} (or nothing) as no tools. */
    static List<String> toolList(String value) {
        String v = value.strip();
        if (v.isEmpty() || v.equalsIgnoreCase("none")) {
            return List.of();
        }
        return java.util.Arrays.stream(v.split(",")).map(String::strip).filter(t -> !t.isEmpty()).toList();
    }

    private static Misfire wrapMisfire(String value) {
        try {
            return Misfire.of(value);
        } catch (IllegalArgumentException e) {
            throw new ScheduleException("misfire must be run_once or skip, was '" + value + "'.");
        }
    }
}
