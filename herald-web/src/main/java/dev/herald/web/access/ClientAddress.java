package dev.herald.web.access;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Client addresses as the per-client limits count them. An IPv4 address (also when it arrives as an
 * IPv4-mapped IPv6 address) is its own client; an IPv6 address counts as its /64 network, because one
 * host usually holds a whole /64 and could otherwise rotate through addresses to escape every limit.
 * Decided without DNS: only literals are parsed.
 */
public final class ClientAddress {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    private ClientAddress() {
    }

    /** The limit bucket of a connection's remote address, such as {@code 127.0.0.1} or {@code 2001:db8:1:2::/64}. */
    public static String bucket(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return bucket(inet.getAddress());
        }
        return String.valueOf(remote);
    }

    public static String bucket(InetAddress address) {
        if (address instanceof Inet4Address) {
            return address.getHostAddress();
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet6Address && isMappedV4(b)) {
            return (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
        }
        if (address.isLoopbackAddress()) {
            return "::1";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i += 2) {
            sb.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
        }
        return sb.append(":/64").toString();
    }

    /** The bucket of an address given as text (a servlet's remote address, a forwarded-for entry); the text itself when it is no literal. */
    public static String bucket(String literal) {
        InetAddress address = parse(literal);
        return address == null ? String.valueOf(literal) : bucket(address);
    }

    /** True for 127.0.0.0/8, ::1 and their IPv4-mapped form, given as a literal (brackets allowed). */
    public static boolean isLoopback(String literal) {
        InetAddress address = parse(literal);
        if (address == null) {
            return false;
        }
        byte[] b = address.getAddress();
        return address.isLoopbackAddress() || (b.length == 16 && isMappedV4(b) && b[12] == 127);
    }

    /** An IP literal parsed without any DNS lookup, or null when the text is not one. */
    static InetAddress parse(String literal) {
        if (literal == null || literal.isBlank()) {
            return null;
        }
        String a = literal.strip().toLowerCase(Locale.ROOT);
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

    private static boolean isMappedV4(byte[] b) {
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
