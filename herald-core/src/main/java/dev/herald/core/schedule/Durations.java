package dev.herald.core.schedule;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Short written durations: {@code 90s}, {@code 30m}, {@code 1h30m}, {@code 2d}. */
public final class Durations {
    private static final Pattern WHOLE = Pattern.compile("(\\d{1,6}[smhd])+");
    private static final Pattern PART = Pattern.compile("(\\d{1,6})([smhd])");

    private Durations() {
    }

    /**
     * Reads a duration such as {@code 30m} or {@code 1h30m}.
     *
     * @throws IllegalArgumentException naming the text and the forms that work
     */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (!WHOLE.matcher(t).matches()) {
            throw new IllegalArgumentException("schedule - '" + text + "' is not a duration; write a number with s, m, h or d, "
                    + "such as 30m, 1h30m or 2d");
        }
        Duration d = Duration.ZERO;
        Matcher m = PART.matcher(t);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            });
        }
        return d;
    }

    /** The shortest written form: {@code 1h30m}, {@code 45s}, {@code 0s}. */
    public static String format(Duration d) {
        long s = d.toSeconds();
        if (s == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        long[] sizes = {86_400, 3_600, 60, 1};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < sizes.length; i++) {
            if (s >= sizes[i]) {
                sb.append(s / sizes[i]).append(units[i]);
                s %= sizes[i];
            }
        }
        return sb.toString();
    }
}
