package dev.herald.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** How jobs read in chats, /status, the log and the command line. */
public final class Text {
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

    private Text() {
    }

    /** A time in the job's zone: {@code 2026-12-04 09:00}. */
    public static String local(Job job, Instant t) {
        return t == null ? "-" : LOCAL.format(ZonedDateTime.ofInstant(t, job.schedule().zone()));
    }

    /** The next run, in the job's zone, or why there is none. */
    public static String next(Job job) {
        if (!job.enabled()) {
            return "paused";
        }
        return job.nextRunAt() == null ? "no more runs" : local(job, job.nextRunAt()) + " " + job.schedule().zone().getId();
    }

    /** The last result and when, or "not run yet". */
    public static String last(Job job) {
        return job.lastOutcome() == null ? "not run yet" : job.lastOutcome() + " (" + local(job, job.lastRunAt()) + ")";
    }

    /**
     * One line per job: {@code k3m9xq · 0 9 * * 1-5 · next 2026-12-04 09:00 Europe/Berlin · last ok (...) · model fast ·
     * tools read_file, http_get · Summarise my inbox} (model and tools only when the job sets them).
     */
    public static String line(Job job) {
        return job.id() + " \u00b7 " + job.schedule().text() + " \u00b7 next " + next(job) + " \u00b7 last " + last(job)
                + (job.logOnly() ? " \u00b7 to log" : "") + optionParts(job).stream().map(p -> " \u00b7 " + p).collect(Collectors.joining())
                + " \u00b7 " + shorten(job.prompt(), 80);
    }

    /** The model profile and tools a job sets: {@code model fast, tools read_file, http_get}; {@code tools none} for an empty list. */
    public static String options(Job job) {
        return String.join(", ", optionParts(job));
    }

    private static List<String> optionParts(Job job) {
        List<String> parts = new ArrayList<>(2);
        if (job.model() != null) {
            parts.add("model " + job.model());
        }
        if (job.tools() != null) {
            parts.add("tools " + (job.tools().isEmpty() ? "none" : String.join(", ", job.tools())));
        }
        return parts;
    }

    static String shorten(String s, int max) {
        String one = s.replace('\n', ' ');
        return one.length() <= max ? one : one.substring(0, max - 1) + "\u2026";
    }

    /** "in 3 h" style distance, for a person. */
    static String in(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s < 120 ? s + " s" : s < 7200 ? s / 60 + " min" : s / 3600 + " h";
    }

    /** An exception message without its "subject - " prefix, for a chat user. */
    static String withoutSubject(String message) {
        if (message == null) {
            return "That did not work.";
        }
        int dash = message.indexOf(" - ");
        String rest = dash >= 0 && dash < 20 ? message.substring(dash + 3) : message;
        return Character.toUpperCase(rest.charAt(0)) + rest.substring(1) + (rest.endsWith(".") ? "" : ".");
    }
}
