package dev.herald.store.postgres;

import java.util.Locale;

/**
 * PostgreSQL JDBC URLs: checking their form and naming a database without its credentials. A URL may
 * carry {@code password=} (or {@code user=}) among its properties, so the URL itself is never put in a
 * message or a log line; {@link #describe(String)} is.
 */
public final class JdbcUrl {
    /** Every URL this store accepts starts with this. */
    public static final String PREFIX = "jdbc:postgresql://";

    private JdbcUrl() {
    }

    /** Whether {@code url} has the form {@code jdbc:postgresql://host[:port][/database][?properties]} with a host. */
    public static boolean valid(String url) {
        if (url == null || !url.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return false;
        }
        String host = authority(url);
        return !host.isBlank() && host.chars().noneMatch(Character::isWhitespace);
    }

    /** Whether the URL's properties include a password ({@code ?password=...} or {@code &password=...}). */
    public static boolean carriesPassword(String url) {
        int query = url == null ? -1 : url.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (String property : url.substring(query + 1).split("&")) {
            if (property.toLowerCase(Locale.ROOT).startsWith("password=")) {
                return true;
            }
        }
        return false;
    }

    static void require(String url) {
        if (!valid(url)) {
            // the URL itself is not quoted: it may hold a password
            throw new IllegalArgumentException("store - the PostgreSQL URL must look like " + PREFIX + "host:5432/herald"
                    + (url == null ? " (it is not set)" : ""));
        }
    }

    /**
     * {@code postgresql host:port/database}: the hosts and the database, never a user, a password or any
     * other property. For a URL that is not valid, {@code postgresql (invalid URL)}.
     */
    public static String describe(String url) {
        if (!valid(url)) {
            return "postgresql (invalid URL)";
        }
        String rest = url.substring(PREFIX.length());
        int query = rest.indexOf('?');
        String path = query < 0 ? rest : rest.substring(0, query);
        int slash = path.indexOf('/');
        String database = slash < 0 ? "" : path.substring(slash + 1);
        return "postgresql " + authority(url) + "/" + (database.isEmpty() ? "(default database)" : database);
    }

    /** The host list of the URL, without any {@code user:password@} part. */
    private static String authority(String url) {
        String rest = url.substring(PREFIX.length());
        int end = rest.length();
        for (char stop : new char[] {'/', '?', '#'}) {
            int i = rest.indexOf(stop);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        String authority = rest.substring(0, end);
        int at = authority.lastIndexOf('@');
        return (at >= 0 ? authority.substring(at + 1) : authority).toLowerCase(Locale.ROOT);
    }
}
