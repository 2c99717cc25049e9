package dev.herald.web.access;

import dev.herald.core.Loopback;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Client addresses as the per-client limits count them. An IPv4 address (also when it arrives as an
 * IPv4-mapped IPv6 address) is its own client; an IPv6 address counts as its /64 network, because one
 * host usually holds a whole /64 and could otherwise rotate through addresses to escape every limit.
 * Decided without DNS: only literals are parsed.
 */
public final class ClientAddress {

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
        if (address instanceof Inet6Address && Loopback.isMappedV4(b)) {
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
        return Loopback.isAddress(literal);
    }

    /** An IP literal parsed without any DNS lookup, or null when the text is not one. */
    static InetAddress parse(String literal) {
        return Loopback.literal(literal);
    }

}
