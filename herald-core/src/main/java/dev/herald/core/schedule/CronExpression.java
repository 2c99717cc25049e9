package dev.herald.core.schedule;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A standard 5-field cron expression ({@code minute hour day-of-month month day-of-week}) evaluated in a time
 * zone, with the next occurrence after an instant.
 *
 * <p>Fields take {@code *}, numbers, ranges {@code a-b}, steps {@code * /n}, {@code a-b/n} and {@code a/n}, and
 * comma lists; months and weekdays also take names ({@code JAN}, {@code MON}); weekday 0 and 7 are Sunday. When
 * both day fields are restricted, a day matches either (as in every cron since Vixie's). The macros
 * {@code @hourly}, {@code @daily} ({@code @midnight}), {@code @weekly}, {@code @monthly}, {@code @yearly}
 * ({@code @annually}) are accepted. Not supported: seconds, years, {@code L}, {@code W}, {@code #}, {@code ?}.
 *
 * <h2>Daylight saving</h2>
 * Local times are matched, so a job at 09:00 stays at 09:00 local across a change. Two cases need a rule:
 * <ul>
 *   <li><b>A time that does not exist</b> (02:30 on the day clocks jump from 02:00 to 03:00): a job with a
 *       fixed hour fires once, at the instant of the jump (03:00 local); several skipped times of one gap
 *       collapse into that one run. A job that runs every hour ({@code *} in the hour field) simply has
 *       no run in the skipped hour: elapsed time has no such hour.</li>
 *   <li><b>A time that exists twice</b> (02:30 on the day clocks go back from 03:00 to 02:00): a job with a
 *       fixed hour fires once, at the first occurrence (the summer-time one). A job that runs every hour
 *       fires in both repeated hours, since an hour of real time passes between them.</li>
 * </ul>
 * These are the rules of cronie and Vixie cron: fixed-time jobs run once a day whatever the clocks do;
 * frequent jobs follow elapsed time.
 */
public final class CronExpression {
    private static final Map<String, String> MACROS = Map.of(
            "@hourly", "0 * * * *", "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@weekly", "0 0 * * 0",
            "@monthly", "0 0 1 * *", "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *");
    private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");
    /** How far ahead a next occurrence is looked for; a schedule with none in this span never fires. */
    private static final int SEARCH_YEARS = 9;
    /** Larger than any offset change a zone has made (Antarctica/Troll: 2 h): the overlap look-back. */
    private static final long MARGIN_HOURS = 3;

    private final String text;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    private final BitSet daysOfWeek;
    private final boolean domRestricted;
    private final boolean dowRestricted;
    private final boolean everyHour;

    private CronExpression(String text, BitSet minutes, BitSet hours, BitSet daysOfMonth, BitSet months, BitSet daysOfWeek,
            boolean domRestricted, boolean dowRestricted) {
        this.text = text;
        this.minutes = minutes;
        this.hours = hours;
        this.daysOfMonth = daysOfMonth;
        this.months = months;
        this.daysOfWeek = daysOfWeek;
        this.domRestricted = domRestricted;
        this.dowRestricted = dowRestricted;
        this.everyHour = hours.cardinality() == 24;
    }

    /**
     * Parses an expression.
     *
     * @throws IllegalArgumentException naming the field and what is wrong with it
     */
    public static CronExpression parse(String expression) {
        String given = expression == null ? "" : expression.strip().replaceAll("\\s+", " ");
        String expanded = given.startsWith("@") ? MACROS.get(given.toLowerCase(Locale.ROOT)) : given;
        if (expanded == null) {
            throw new IllegalArgumentException("cron - unknown macro '" + given + "'; use @hourly, @daily, @weekly, @monthly or @yearly");
        }
        String[] f = expanded.split(" ");
        if (f.length != 5) {
            throw new IllegalArgumentException("cron - '" + given + "' has " + f.length + " field(s); a cron expression has 5: "
                    + "minute hour day-of-month month day-of-week, e.g. \"0 9 * * 1-5\"");
        }
        BitSet dow = field(f[4], "day-of-week", 0, 7, DAYS);
        if (dow.get(7)) {
            dow.set(0);
            dow.clear(7);
        }
        CronExpression cron = new CronExpression(given, field(f[0], "minute", 0, 59, null), field(f[1], "hour", 0, 23, null),
                field(f[2], "day-of-month", 1, 31, null), field(f[3], "month", 1, 12, MONTHS), dow, !f[2].equals("*"), !f[4].equals("*"));
        if (cron.nextLocal(LocalDateTime.of(2000, 1, 1, 0, 0)).isEmpty()) {
            throw new IllegalArgumentException("cron - '" + given + "' never matches a date (such as 30 February)");
        }
        return cron;
    }

    /** The expression as written (whitespace collapsed). */
    public String text() {
        return text;
    }

    /**
     * The first occurrence strictly after {@code after}, in {@code zone}, by the daylight-saving rules above;
     * empty when there is none within nine years.
     */
    public Optional<Instant> nextAfter(Instant after, ZoneId zone) {
        ZoneRules rules = zone.getRules();
        LocalDateTime from = LocalDateTime.ofInstant(after, zone).minusHours(MARGIN_HOURS).truncatedTo(ChronoUnit.MINUTES);
        Instant best = null;
        LocalDateTime stopAt = null;
        Optional<LocalDateTime> candidate = nextLocal(from);
        while (candidate.isPresent()) {
            LocalDateTime c = candidate.get();
            if (stopAt != null && c.isAfter(stopAt)) {
                break;
            }
            for (Instant i : instantsOf(c, rules)) {
                if (i.isAfter(after) && (best == null || i.isBefore(best))) {
                    best = i;
                    // a later local time can still be an earlier instant only within an offset change's width
                    stopAt = LocalDateTime.ofInstant(best, zone).plusHours(MARGIN_HOURS);
                }
            }
            candidate = nextLocal(c.plusMinutes(1));
        }
        return Optional.ofNullable(best);
    }

    /** The instants local time {@code c} stands for (none, one or two), by the rules in the class comment. */
    private List<Instant> instantsOf(LocalDateTime c, ZoneRules rules) {
        List<ZoneOffset> offsets = rules.getValidOffsets(c);
        if (offsets.size() == 1) {
            return List.of(c.toInstant(offsets.get(0)));
        }
        ZoneOffsetTransition t = rules.getTransition(c);
        if (offsets.isEmpty()) {
            return everyHour ? List.of() : List.of(t.getInstant());
        }
        Instant first = c.toInstant(t.getOffsetBefore());
        return everyHour ? List.of(first, c.toInstant(t.getOffsetAfter())) : List.of(first);
    }

    /** The first local date-time at or after {@code from} (minute precision) that the fields match. */
    Optional<LocalDateTime> nextLocal(LocalDateTime from) {
        LocalDateTime c = from.getSecond() == 0 && from.getNano() == 0 ? from : from.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        LocalDate limit = from.toLocalDate().plusYears(SEARCH_YEARS);
        while (!c.toLocalDate().isAfter(limit)) {
            if (!months.get(c.getMonthValue())) {
                c = c.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay();
            } else if (!dayMatches(c.toLocalDate())) {
                c = c.toLocalDate().plusDays(1).atStartOfDay();
            } else if (!hours.get(c.getHour())) {
                c = c.truncatedTo(ChronoUnit.HOURS).plusHours(1);
            } else {
                int minute = minutes.nextSetBit(c.getMinute());
                if (minute >= 0) {
                    return Optional.of(c.withMinute(minute));
                }
                c = c.truncatedTo(ChronoUnit.HOURS).plusHours(1);
            }
        }
        return Optional.empty();
    }

    private boolean dayMatches(LocalDate d) {
        boolean dom = daysOfMonth.get(d.getDayOfMonth());
        boolean dow = daysOfWeek.get(d.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : d.getDayOfWeek().getValue());
        if (domRestricted && dowRestricted) {
            return dom || dow;
        }
        return dom && dow;
    }

    private static BitSet field(String text, String name, int min, int max, List<String> names) {
        BitSet bits = new BitSet(max + 1);
        for (String part : text.split(",", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException("cron - the " + name + " field '" + text + "' has an empty list item");
            }
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), name, 1, max, null);
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            } else if (range.contains("-")) {
                String[] ab = range.split("-", -1);
                if (ab.length != 2) {
                    throw new IllegalArgumentException("cron - the " + name + " field has a bad range '" + range + "'");
                }
                from = number(ab[0], name, min, max, names);
                to = number(ab[1], name, min, max, names);
                if (to < from) {
                    throw new IllegalArgumentException("cron - the " + name + " range '" + range + "' runs backwards; write "
                            + to + "-" + from + " or a list");
                }
            } else {
                from = number(range, name, min, max, names);
                to = slash >= 0 ? max : from;
            }
            for (int v = from; v <= to; v += step) {
                bits.set(v);
            }
        }
        return bits;
    }

    private static int number(String s, String name, int min, int max, List<String> names) {
        if (names != null) {
            int i = names.indexOf(s.toUpperCase(Locale.ROOT));
            if (i >= 0) {
                return names == MONTHS ? i + 1 : i;
            }
        }
        try {
            int v = Integer.parseInt(s);
            if (v < min || v > max) {
                throw new IllegalArgumentException("cron - the " + name + " value " + v + " is outside " + min + "-" + max);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cron - the " + name + " field has '" + s + "', which is not a number"
                    + (names == null ? "" : " or a name such as " + names.get(1)));
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronExpression c && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
