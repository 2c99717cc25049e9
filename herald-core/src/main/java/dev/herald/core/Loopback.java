package dev.herald.core;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The one loopback check: whether an address or a host name means this machine only. Decided without DNS: a name other
 * than {@code localhost} is never loopback, however it resolves (a name can be made to resolve to 127.0.0.1 and later to
 * something else).
 */
public final class Loopback {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");

    private Loopback() {
    }

    /** True for 127.0.0.0/8, ::1 and their IPv4-mapped form ({@code ::ffff:127.0.0.1}), given as a literal (brackets allowed). */
    public static boolean isAddress(String literal) {
        InetAddress address = literal(literal);
        if (address == null) {
            return false;
        }
        byte[] b = address.getAddress();
        return address.isLoopbackAddress() || (b.length == 16 && isMappedV4(b) && b[12] == 127);
    }

    /**
     * True for a loopback address or the name {@code localhost}, as a configured host or a Host header: brackets around
     * an IPv6 literal and a {@code :port} after it are allowed ({@code [::1]:8642}, {@code localhost:8642}).
     */
    public static boolean isHost(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end > 0 && (end == h.length() - 1 || h.charAt(end + 1) == ':') && isAddress(h.substring(1, end));
        }
        if (h.indexOf(':') == h.lastIndexOf(':') && h.indexOf(':') >= 0) {
            h = h.substring(0, h.indexOf(':')); // one colon: a name or IPv4 address with its port
        }
        return h.equals("localhost") || isAddress(h);
    }

    /** An IP literal parsed without any DNS lookup (brackets and a zone allowed), or null when the text is not one. */
    public static InetAddress literal(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String a = text.strip().toLowerCase(Locale.ROOT);
        if (a.startsWith("[") && a.endsWith("]")) {
            a = a.substring(1, a.length() - 1);
        }
        int zone = a.indexOf('%');
        if (zone >= 0) {
            a = a.substring(0, zone);
        }
        boolean v4 = IPV4.matcher(a).matches();
        boolean v6 = a.indexOf(':') >= 0 && a.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        if (!v4 && !v6) {
            return null;
        }
        if (v4) {
            for (String part : a.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    return null;
                }
            }
        }
        try {
            return InetAddress.getByName(a); // a literal: no lookup happens
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    /** Whether a 16-byte address is an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}). */
    public static boolean isMappedV4(byte[] b) {
        if (b.length != 16) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }
}
