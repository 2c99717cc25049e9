package dev.herald.agent.egress;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * An address block such as {@code 10.0.0.0/8} or {@code fc00::/7}; a bare address is its own block
 * ({@code /32} or {@code /128}). Addresses are compared after {@link IpLiteral#normalise}.
 *
 * @param network the block's first address, host bits cleared
 * @param prefix  the number of leading bits that must match
 */
public record Cidr(InetAddress network, int prefix) {
    public Cidr {
        Objects.requireNonNull(network, "network");
        int bits = network.getAddress().length * 8;
        if (prefix < 0 || prefix > bits) {
            throw new IllegalArgumentException("prefix " + prefix + " is out of range 0.." + bits);
        }
    }

    /** Parses {@code 10.0.0.0/8}, {@code 127.0.0.5}, {@code [::1]/128}; throws with the reason when it is none of these. */
    public static Cidr parse(String text) {
        String t = text.strip();
        int slash = t.indexOf('/');
        String address = slash < 0 ? t : t.substring(0, slash);
        if (address.indexOf(':') < 0 && !address.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("'" + address + "' is not an IP address written a.b.c.d");
        }
        InetAddress parsed = IpLiteral.parse(address).orElseThrow(
                () -> new IllegalArgumentException("'" + address + "' is not an IP address"));
        int bits = parsed.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException("'/" + p + "' is not a prefix length 0.." + bits);
            }
            prefix = Integer.parseInt(p);
        }
        return new Cidr(masked(parsed, prefix), prefix);
    }

    /** True when {@code address} (normalised) lies in this block. */
    public boolean contains(InetAddress address) {
        byte[] a = IpLiteral.normalise(address).getAddress();
        byte[] n = network.getAddress();
        if (a.length != n.length) {
            return false;
        }
        return Arrays.equals(mask(a, prefix), n);
    }

    @Override
    public String toString() {
        return IpLiteral.text(network) + "/" + prefix;
    }

    private static InetAddress masked(InetAddress address, int prefix) {
        try {
            return InetAddress.getByAddress(mask(address.getAddress(), prefix));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] mask(byte[] bytes, int prefix) {
        byte[] out = bytes.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - 8 * i));
            out[i] = (byte) (out[i] & (0xFF << (8 - keep)));
        }
        return out;
    }
}
