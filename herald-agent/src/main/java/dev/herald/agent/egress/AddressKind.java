package dev.herald.agent.egress;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;

/**
 * What kind of network an address belongs to, for the egress guard: only {@link #PUBLIC} addresses are
 * reachable by default. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64 {@code 64:ff9b::/96},
 * 6to4 {@code 2002::/16}) are judged by the IPv4 address they carry.
 */
public enum AddressKind {
    PUBLIC("a public address"),
    LOOPBACK("a loopback address"),
    PRIVATE("a private address"),
    SHARED("a carrier-grade NAT address"),
    LINK_LOCAL("a link-local address"),
    METADATA("a cloud metadata address"),
    UNSPECIFIED("an unspecified address"),
    MULTICAST("a multicast address"),
    BROADCAST("a broadcast address"),
    RESERVED("a reserved address");

    private final String phrase;

    AddressKind(String phrase) {
        this.phrase = phrase;
    }

    /** "a loopback address", for messages. */
    public String phrase() {
        return phrase;
    }

    private record Block(Cidr cidr, AddressKind kind) {
        static Block of(String cidr, AddressKind kind) {
            return new Block(Cidr.parse(cidr), kind);
        }
    }

    /** First match wins: the specific metadata addresses come before the ranges that hold them. */
    private static final List<Block> BLOCKS = List.of(
            Block.of("169.254.169.254", METADATA),          // AWS, GCP, Azure, OpenStack, DigitalOcean ...
            Block.of("169.254.170.2", METADATA),            // AWS ECS task credentials
            Block.of("fd00:ec2::254", METADATA),            // AWS over IPv6
            Block.of("100.100.100.200", METADATA),          // Alibaba Cloud
            Block.of("192.0.0.192", METADATA),              // Oracle Cloud
            Block.of("0.0.0.0/32", UNSPECIFIED),
            Block.of("0.0.0.0/8", RESERVED),                // "this network"; Linux connects 0.x to the local host
            Block.of("127.0.0.0/8", LOOPBACK),
            Block.of("10.0.0.0/8", PRIVATE),
            Block.of("172.16.0.0/12", PRIVATE),
            Block.of("192.168.0.0/16", PRIVATE),
            Block.of("100.64.0.0/10", SHARED),
            Block.of("169.254.0.0/16", LINK_LOCAL),
            Block.of("192.0.0.0/24", RESERVED),             // IETF protocol assignments
            Block.of("192.0.2.0/24", RESERVED),             // documentation
            Block.of("198.18.0.0/15", RESERVED),            // benchmarking
            Block.of("198.51.100.0/24", RESERVED),          // documentation
            Block.of("203.0.113.0/24", RESERVED),           // documentation
            Block.of("224.0.0.0/4", MULTICAST),
            Block.of("255.255.255.255/32", BROADCAST),
            Block.of("240.0.0.0/4", RESERVED),
            Block.of("::/128", UNSPECIFIED),
            Block.of("::1/128", LOOPBACK),
            Block.of("fc00::/7", PRIVATE),                  // unique local
            Block.of("fe80::/10", LINK_LOCAL),
            Block.of("fec0::/10", PRIVATE),                 // deprecated site-local
            Block.of("ff00::/8", MULTICAST),
            Block.of("100::/64", RESERVED),                 // discard
            Block.of("2001::/32", RESERVED),                // Teredo tunnels
            Block.of("2001:db8::/32", RESERVED),            // documentation
            Block.of("::/96", RESERVED));                   // what is left of IPv4-compatible after normalising

    private static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
    private static final Cidr SIX_TO_FOUR = Cidr.parse("2002::/16");

    /** The kind of {@code address}, after normalising IPv4-in-IPv6 forms. */
    public static AddressKind of(InetAddress address) {
        InetAddress a = embeddedIpv4(IpLiteral.normalise(address));
        for (Block block : BLOCKS) {
            if (block.cidr().contains(a)) {
                return block.kind();
            }
        }
        return PUBLIC;
    }

    /** The IPv4 address a NAT64 or 6to4 address carries; else the address itself. */
    static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        if (NAT64.contains(address)) {
            return IpLiteral.v4(b[12], b[13], b[14], b[15]);
        }
        if (SIX_TO_FOUR.contains(address)) {
            return IpLiteral.v4(b[2], b[3], b[4], b[5]);
        }
        return address;
    }
}
