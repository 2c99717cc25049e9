package dev.herald.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a job runs: a cron expression in a time zone, a fixed interval of elapsed time, or one moment.
 * Every time is an {@link Instant} (UTC); the zone only gives local times their meaning.
 *
 * <p>Written forms ({@link #parse}): {@code 0 9 * * 1-5} (cron; see {@link CronExpression} for the
 * daylight-saving rules), {@code every 30m} (units s, m, h, d; at least one minute; counted from the
 * job's creation, unaffected by daylight saving), {@code at 2026-12-24T09:00} (a local time in the zone,
 * or with an offset), {@code at 09:00} (the next such local time) and {@code in 20m} (from now); the last
 * three are one-shot. A local time follows cron's daylight-saving rules ({@link #local}): one a spring-forward
 * skips is the instant of the jump, one a fall-back repeats is its first occurrence.
 */
public sealed interface Schedule {
    /** The shortest interval {@code every} accepts. */
    Duration MIN_INTERVAL = Duration.ofMinutes(1);

    /** The first occurrence strictly after {@code t}; empty when the schedule has no more. */
    Optional<Instant> nextAfter(Instant t);

    /** The stored form: parsing it again with the same zone and anchor gives the same schedule. */
    String text();

    ZoneId zone();

    /** A cron expression evaluated in {@code zone}. */
    record Cron(CronExpression expression, ZoneId zone) implements Schedule {
        public Cron {
            Objects.requireNonNull(expression, "expression");
            Objects.requireNonNull(zone, "zone");
        }

        @Override
        public Optional<Instant> nextAfter(Instant t) {
            return expression.nextAfter(t, zone);
        }

        @Override
        public String text() {
            return expression.text();
        }
    }

    /** Every {@code interval} of elapsed time, counted from {@code anchor}. */
    record Every(Duration interval, Instant anchor, ZoneId zone) implements Schedule {
        public Every {
            Objects.requireNonNull(interval, "interval");
            Objects.requireNonNull(anchor, "anchor");
            Objects.requireNonNull(zone, "zone");
            if (interval.compareTo(MIN_INTERVAL) < 0) {
                throw new IllegalArgumentException("schedule - every " + Durations.format(interval) + " is too often; the shortest is "
                        + Durations.format(MIN_INTERVAL));
            }
        }

        @Override
        public Optional<Instant> nextAfter(Instant t) {
            if (t.isBefore(anchor)) {
                return Optional.of(anchor.plus(interval));
            }
            long periods = Duration.between(anchor, t).dividedBy(interval) + 1;
            return Optional.of(anchor.plus(interval.multipliedBy(periods)));
        }

        @Override
        public String text() {
            return "every " + Durations.format(interval);
        }
    }

    /** Once, at {@code at}. */
    record Once(Instant at, ZoneId zone) implements Schedule {
        public Once {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(zone, "zone");
        }

        @Override
        public Optional<Instant> nextAfter(Instant t) {
            return at.isAfter(t) ? Optional.of(at) : Optional.empty();
        }

        /** The moment with its offset in the zone, e.g. {@code at 2026-12-24T09:00+01:00}: exact, and readable. */
        @Override
        public String text() {
            OffsetDateTime local = ZonedDateTime.ofInstant(at, zone).toOffsetDateTime();
            return "at " + local.format(local.getSecond() == 0 && local.getNano() == 0 ? MINUTES : DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        }
    }

    DateTimeFormatter MINUTES = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mmXXX");
    Pattern EVERY = Pattern.compile("(?i)every\\s+(\\S+)");
    Pattern IN = Pattern.compile("(?i)in\\s+(\\S+)");
    Pattern AT = Pattern.compile("(?i)at\\s+(.+)");

    /**
     * Reads a written schedule (forms in the class comment).
     *
     * @param zone   the zone local times are read in
     * @param now    the moment of writing: {@code every} counts from it, {@code in} and {@code at HH:MM} start from it
     * @throws IllegalArgumentException naming what is wrong and the forms that work
     */
    static Schedule parse(String text, ZoneId zone, Instant now) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("schedule - empty; write a cron expression such as \"0 9 * * 1-5\", \"every 30m\", "
                    + "\"at 2026-12-24T09:00\" or \"in 20m\"");
        }
        Matcher m;
        if ((m = EVERY.matcher(t)).matches()) {
            return new Every(Durations.parse(m.group(1)), now, zone);
        }
        if ((m = IN.matcher(t)).matches()) {
            return new Once(now.plus(Durations.parse(m.group(1))).truncatedTo(java.time.temporal.ChronoUnit.SECONDS), zone);
        }
        if ((m = AT.matcher(t)).matches()) {
            return new Once(moment(m.group(1).strip(), zone, now), zone);
        }
        return new Cron(CronExpression.parse(t), zone);
    }

    /** A schedule as stored: its text, zone and anchor (the creation time, which {@code every} counts from). */
    static Schedule stored(String text, ZoneId zone, Instant anchor) {
        return parse(text, zone, anchor);
    }

    private static Instant moment(String s, ZoneId zone, Instant now) {
        String iso = s.replace(' ', 'T');
        try {
            return OffsetDateTime.parse(iso).toInstant();
        } catch (DateTimeParseException notOffset) {
            // a local time follows
        }
        try {
            return local(LocalDateTime.parse(iso), zone);
        } catch (DateTimeParseException notLocal) {
            // a time of day follows
        }
        try {
            LocalTime time = LocalTime.parse(s);
            LocalDate today = LocalDate.ofInstant(now, zone);
            Instant at = local(today.atTime(time), zone);
            return at.isAfter(now) ? at : local(today.plusDays(1).atTime(time), zone);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("schedule - 'at " + s + "' is not a time; write at 2026-12-24T09:00, "
                    + "at 2026-12-24T09:00+01:00 or at 09:00");
        }
    }

    /**
     * The instant of a local time in {@code zone}, by the rules {@link CronExpression} follows for a fixed time: a time a
     * spring-forward skips (02:30 when clocks jump from 02:00 to 03:00) is the instant of the jump (03:00 local), not the
     * time shifted by the gap (03:30) as {@link LocalDateTime#atZone} has it; a time a fall-back repeats is its first
     * occurrence.
     */
    static Instant local(LocalDateTime time, ZoneId zone) {
        java.time.zone.ZoneRules rules = zone.getRules();
        if (rules.getValidOffsets(time).isEmpty()) {
            return rules.getTransition(time).getInstant();
        }
        return time.atZone(zone).toInstant();
    }

    /** A zone by its IANA name ({@code Europe/Berlin}, {@code UTC}). */
    static ZoneId zone(String name) {
        try {
            return ZoneId.of(name.strip());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("schedule - '" + name + "' is not a time zone; use an IANA name such as Europe/Berlin, "
                    + "America/New_York or UTC");
        }
    }

    /** Whether {@code text} reads as a one-shot schedule ({@code at}, {@code in}). */
    static boolean oneShot(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        return t.startsWith("at ") || t.startsWith("in ");
    }
}
