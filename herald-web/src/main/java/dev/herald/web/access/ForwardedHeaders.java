package dev.herald.web.access;

import java.util.Locale;

/**
 * Reads the client address a reverse proxy recorded: the last entry of {@code X-Forwarded-For}, or the
 * {@code for=} of the last element of {@code Forwarded} (RFC 7239). The last one is the hop the proxy on
 * this machine added; earlier ones come from the client and prove nothing. One pass, no regular
 * expressions; the header size is bounded by the server.
 */
final class ForwardedHeaders {
    private ForwardedHeaders() {
    }

    /** The last address in an {@code X-Forwarded-For} value, or null. */
    static String lastXForwardedFor(String header) {
        if (header == null) {
            return null;
        }
        int comma = header.lastIndexOf(',');
        return address(header.substring(comma + 1));
    }

    /** The {@code for=} address of the last element of a {@code Forwarded} value, or null. */
    static String lastForwardedFor(String header) {
        if (header == null) {
            return null;
        }
        String last = header.substring(header.lastIndexOf(',') + 1);
        for (String pair : last.split(";")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).strip().toLowerCase(Locale.ROOT).equals("for")) {
                return address(pair.substring(eq + 1));
            }
        }
        return null;
    }

    /** An address without quotes, brackets or port; null when blank. */
    private static String address(String raw) {
        String a = raw.strip();
        if (a.length() >= 2 && a.startsWith("\"") && a.endsWith("\"")) {
            a = a.substring(1, a.length() - 1).strip();
        }
        if (a.startsWith("[")) {
            int end = a.indexOf(']');
            return end > 1 ? a.substring(1, end) : null;
        }
        if (a.indexOf(':') == a.lastIndexOf(':') && a.indexOf(':') > 0) {
            a = a.substring(0, a.indexOf(':')); // IPv4 with a port
        }
        return a.isEmpty() ? null : a;
    }
}
