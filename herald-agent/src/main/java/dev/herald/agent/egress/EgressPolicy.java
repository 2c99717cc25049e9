package dev.herald.agent.egress;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The egress guard: which hosts the agent's own fetches may connect to.
 *
 * <p>{@link #admit} turns a URL's host into the addresses a connection may use: an IP spelling is parsed
 * ({@link IpLiteral}, no lookup), a name is resolved once through the {@link Resolver}, and every address is
 * judged ({@link AddressKind}). Only public addresses pass, unless {@code agent.http_allow} opens an exception:
 * a CIDR block ({@code 10.0.0.0/8}, {@code 127.0.0.5/32}) admits the addresses inside it, a host name
 * ({@code intranet.example}) admits that name whatever it resolves to. A name with one refused address is
 * refused whole. The caller connects to exactly the returned addresses (no second lookup, so a name that
 * answers differently the next time cannot move the connection: DNS rebinding).
 */
public final class EgressPolicy {
    /** The configuration key the refusals point to. */
    public static final String ALLOW_KEY = "agent.http_allow";

    /** Name lookups; tests pass a stub so nothing leaves the machine. */
    @FunctionalInterface
    public interface Resolver {
        List<InetAddress> lookup(String name) throws UnknownHostException;

        Resolver SYSTEM = name -> List.of(InetAddress.getAllByName(name));
    }

    private final List<Cidr> allowedBlocks;
    private final Set<String> allowedNames;
    private final Resolver resolver;

    public EgressPolicy(List<String> allow, Resolver resolver) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        List<Cidr> blocks = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (String entry : allow == null ? List.<String>of() : allow) {
            Optional<String> problem = problem(entry);
            if (problem.isPresent()) {
                throw new IllegalArgumentException(ALLOW_KEY + " - " + problem.get());
            }
            if (looksLikeAddress(entry)) {
                blocks.add(Cidr.parse(entry));
            } else {
                names.add(name(entry));
            }
        }
        this.allowedBlocks = List.copyOf(blocks);
        this.allowedNames = Set.copyOf(names);
    }

    /** Nothing allowed beyond public addresses; names resolved by the system. */
    public static EgressPolicy defaults() {
        return new EgressPolicy(List.of(), Resolver.SYSTEM);
    }

    /** What is wrong with one {@code agent.http_allow} entry, or empty when it is a host name, an address or a CIDR block. */
    public static Optional<String> problem(String entry) {
        if (entry == null || entry.isBlank()) {
            return Optional.of("an entry is empty; write a host name (intranet.example) or a CIDR block (10.0.0.0/8)");
        }
        if (looksLikeAddress(entry)) {
            try {
                Cidr.parse(entry);
                return Optional.empty();
            } catch (IllegalArgumentException e) {
                return Optional.of("'" + entry.strip() + "' is not a CIDR block (" + e.getMessage() + "); write e.g. 10.0.0.0/8 or fd00::/8");
            }
        }
        if (!name(entry).matches("[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*")) {
            return Optional.of("'" + entry.strip() + "' is neither a host name nor a CIDR block; write e.g. intranet.example or 10.0.0.0/8");
        }
        return Optional.empty();
    }

    private static boolean looksLikeAddress(String entry) {
        String e = entry.strip();
        return e.contains("/") || e.contains(":") || e.matches("[0-9.]+");
    }

    private static String name(String host) {
        String h = host.strip().toLowerCase(Locale.ROOT);
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    /**
     * The addresses a connection to {@code host} may use, in the resolver's order; never empty.
     *
     * @throws EgressRefused when the host resolves to nothing, or to an address the policy refuses
     */
    public List<InetAddress> admit(String host) throws EgressRefused {
        String bare = host.strip();
        if (bare.startsWith("[") && bare.endsWith("]")) {
            bare = bare.substring(1, bare.length() - 1);
        }
        Optional<InetAddress> literal = IpLiteral.parse(bare);
        if (literal.isPresent()) {
            InetAddress address = literal.get();
            String shown = IpLiteral.text(address);
            String spelled = shown.equalsIgnoreCase(bare) ? "" : " (written " + bare + ")";
            Optional<AddressKind> kind = refusal(address);
            if (kind.isPresent()) {
                throw new EgressRefused(shown + " is " + kind.get().phrase() + spelled + "; add it to " + ALLOW_KEY
                        + " to allow it");
            }
            return List.of(address);
        }
        String name = name(bare);
        List<InetAddress> resolved = lookup(name);
        if (allowedNames.contains(name)) {
            return resolved;
        }
        for (InetAddress address : resolved) {
            Optional<AddressKind> kind = refusal(address);
            if (kind.isPresent()) {
                String shown = IpLiteral.text(address);
                throw new EgressRefused(name + " resolves to " + shown + ", " + kind.get().phrase() + "; add " + name
                        + " or " + shown + " to " + ALLOW_KEY + " to allow it");
            }
        }
        return resolved;
    }

    private List<InetAddress> lookup(String name) throws EgressRefused {
        List<InetAddress> found;
        try {
            found = resolver.lookup(name);
        } catch (UnknownHostException e) {
            throw new EgressRefused("the host " + name + " could not be resolved (no DNS record)");
        }
        if (found == null || found.isEmpty()) {
            throw new EgressRefused("the host " + name + " could not be resolved (no DNS record)");
        }
        return found.stream().map(IpLiteral::normalise).distinct().toList();
    }

    /** The kind that refuses {@code address}, or empty when it may be reached. */
    private Optional<AddressKind> refusal(InetAddress address) {
        AddressKind kind = AddressKind.of(address);
        if (kind == AddressKind.PUBLIC || allowedBlocks.stream().anyMatch(b -> b.contains(address))) {
            return Optional.empty();
        }
        return Optional.of(kind);
    }
}
