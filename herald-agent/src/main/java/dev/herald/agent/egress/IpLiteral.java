package dev.herald.agent.egress;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Host texts that are IP addresses, parsed without any DNS lookup, and IPv6 forms that carry an IPv4 address
 * turned into that IPv4 address.
 *
 * <p>IPv4 is read the way the C library's {@code inet_aton} reads it, because that is what a name lookup of
 * such a "name" would do anyway: one to four dot-separated parts, each decimal, octal (a leading {@code 0}) or
 * hex ({@code 0x}), the last part filling the remaining bytes. So {@code 2130706433}, {@code 0x7f.1},
 * {@code 017700000001} and {@code 127.1} are all 127.0.0.1. IPv6 is read by its text form (RFC 4291, with an
 * optional dotted IPv4 tail and zone id); {@code ::ffff:a.b.c.d} (mapped) and {@code ::a.b.c.d} (compatible)
 * become the IPv4 address they carry.
 */
public final class IpLiteral {
    private IpLiteral() {
    }

    /** The address {@code host} spells (brackets allowed around IPv6), normalised; empty when it is a name. */
    public static Optional<InetAddress> parse(String host) {
        String text = host.strip();
        if (text.startsWith("[") && text.endsWith("]")) {
            text = text.substring(1, text.length() - 1);
        }
        if (text.isEmpty()) {
            return Optional.empty();
        }
        byte[] bytes = text.indexOf(':') >= 0 ? ipv6(text) : ipv4(text);
        if (bytes == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(normalise(InetAddress.getByAddress(bytes)));
        } catch (UnknownHostException e) {
            return Optional.empty(); // only thrown for a wrong length, which the parsers never return
        }
    }

    /** The address as people write it: dotted IPv4, or IPv6 with its longest run of zero groups as {@code ::} (RFC 5952). */
    public static String text(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] b = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    /** IPv4-mapped ({@code ::ffff:0:0/96}) and IPv4-compatible ({@code ::/96} but {@code ::} and {@code ::1}) as IPv4. */
    public static InetAddress normalise(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return address;
            }
        }
        boolean mapped = b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        boolean compatible = b[10] == 0 && b[11] == 0 && (b[12] | b[13] | b[14]) != 0;
        if (!mapped && !compatible) {
            return address;
        }
        return v4(b[12], b[13], b[14], b[15]);
    }

    static Inet4Address v4(byte a, byte b, byte c, byte d) {
        try {
            return (Inet4Address) InetAddress.getByAddress(new byte[] {a, b, c, d});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** inet_aton's forms; null when {@code text} is not one. */
    static byte[] ipv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length > 4) {
            return null;
        }
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            values[i] = number(parts[i]);
            if (values[i] < 0) {
                return null;
            }
        }
        long last = values[parts.length - 1];
        int lastBytes = 5 - parts.length;
        if (last >= 1L << (8 * lastBytes)) {
            return null;
        }
        byte[] out = new byte[4];
        for (int i = 0; i < parts.length - 1; i++) {
            if (values[i] > 255) {
                return null;
            }
            out[i] = (byte) values[i];
        }
        for (int i = 0; i < lastBytes; i++) {
            out[3 - i] = (byte) (last >>> (8 * i));
        }
        return out;
    }

    /** One inet_aton part: decimal, 0-prefixed octal or 0x-prefixed hex, at most 2^32 - 1; -1 when it is none. */
    private static long number(String part) {
        String p = part.toLowerCase(Locale.ROOT);
        int radix = 10;
        if (p.startsWith("0x")) {
            radix = 16;
            p = p.substring(2);
        } else if (p.length() > 1 && p.startsWith("0")) {
            radix = 8;
            p = p.substring(1);
        }
        if (p.isEmpty() || p.length() > 32) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < p.length(); i++) {
            int digit = Character.digit(p.charAt(i), radix);
            if (digit < 0) {
                return -1;
            }
            value = value * radix + digit;
            if (value > 0xFFFF_FFFFL) {
                return -1;
            }
        }
        return value;
    }

    /** RFC 4291 text form, optional zone id dropped; null when {@code text} is not one. */
    static byte[] ipv6(String text) {
        int zone = text.indexOf('%');
        String t = zone >= 0 ? text.substring(0, zone) : text;
        byte[] tail = null;
        int lastColon = t.lastIndexOf(':');
        if (t.indexOf('.', lastColon) > 0) {
            tail = ipv4Dotted(t.substring(lastColon + 1));
            if (tail == null) {
                return null;
            }
            t = t.substring(0, lastColon + 1) + "0:0";
        }
        int gap = t.indexOf("::");
        if (gap >= 0 && t.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        String[] head = groups(gap >= 0 ? t.substring(0, gap) : t);
        String[] rest = gap >= 0 ? groups(t.substring(gap + 2)) : new String[0];
        if (head == null || rest == null) {
            return null;
        }
        int count = head.length + rest.length;
        if (gap < 0 ? count != 8 : count > 7) {
            return null;
        }
        byte[] out = new byte[16];
        if (!fill(out, 0, head) || !fill(out, 16 - 2 * rest.length, rest)) {
            return null;
        }
        if (tail != null) {
            System.arraycopy(tail, 0, out, 12, 4);
        }
        return out;
    }

    private static String[] groups(String part) {
        if (part.isEmpty()) {
            return new String[0];
        }
        String[] groups = part.split(":", -1);
        for (String g : groups) {
            if (g.isEmpty() || g.length() > 4) {
                return null;
            }
        }
        return groups;
    }

    private static boolean fill(byte[] out, int at, String[] groups) {
        for (int i = 0; i < groups.length; i++) {
            int value = 0;
            for (char c : groups[i].toCharArray()) {
                int digit = Character.digit(c, 16);
                if (digit < 0) {
                    return false;
                }
                value = value * 16 + digit;
            }
            out[at + 2 * i] = (byte) (value >>> 8);
            out[at + 2 * i + 1] = (byte) value;
        }
        return true;
    }

    /** Strict a.b.c.d, decimal only (the IPv4 tail of an IPv6 address). */
    private static byte[] ipv4Dotted(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (!parts[i].matches("\\d{1,3}") || Integer.parseInt(parts[i]) > 255) {
                return null;
            }
            out[i] = (byte) Integer.parseInt(parts[i]);
        }
        return out;
    }
}
