package dev.herald.core.account;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chat identities linked to web accounts ({@code identity_links}) and the one-time codes that link them
 * ({@code link_codes}). An identity is {@code <platform>:<user id>} ({@code telegram:12345}); it is linked to at most one
 * account. A code is kept only as its SHA-256, with the identity that asked for it and its expiry; taking it removes it,
 * so it works once. Stores without the tables keep them in memory.
 */
public interface IdentityLinks {

    /** One link: {@code identity} speaks for {@code account} since {@code linkedAt}. */
    record Link(String identity, String account, Instant linkedAt) {
    }

    /** The account {@code identity} is linked to, if any. */
    Optional<String> accountOf(String identity);

    /** The links of {@code account} (of every account when null), by identity. */
    List<Link> links(String account);

    /** Links {@code identity} to {@code account}; false (nothing written) when the identity is linked already. */
    boolean link(String identity, String account, Instant at);

    /** Removes the link of {@code identity} (only if it is {@code account}'s, when not null); false when there was none. */
    boolean unlink(String identity, String account);

    /** Keeps a code (its hash) for {@code identity} until {@code expiresAt}; an earlier code of the identity is dropped. */
    void addCode(String codeHash, String identity, Instant expiresAt);

    /** Takes the code with this hash: removes it and returns its identity if it had not expired at {@code now}. */
    Optional<String> takeCode(String codeHash, Instant now);

    /** Links in memory only (tests, and stores without the tables). */
    static IdentityLinks inMemory() {
        return new IdentityLinks() {
            private final Map<String, Link> links = new ConcurrentHashMap<>();
            private final Map<String, Map.Entry<String, Instant>> codes = new ConcurrentHashMap<>();

            @Override
            public Optional<String> accountOf(String identity) {
                return Optional.ofNullable(identity == null ? null : links.get(identity)).map(Link::account);
            }

            @Override
            public List<Link> links(String account) {
                List<Link> out = new ArrayList<>(links.values().stream().filter(l -> account == null || l.account().equals(account)).toList());
                out.sort(Comparator.comparing(Link::identity));
                return out;
            }

            @Override
            public boolean link(String identity, String account, Instant at) {
                return links.putIfAbsent(identity, new Link(identity, account, at)) == null;
            }

            @Override
            public boolean unlink(String identity, String account) {
                Link l = links.get(identity);
                return l != null && (account == null || l.account().equals(account)) && links.remove(identity, l);
            }

            @Override
            public synchronized void addCode(String codeHash, String identity, Instant expiresAt) {
                codes.values().removeIf(e -> e.getKey().equals(identity));
                codes.put(codeHash, Map.entry(identity, expiresAt));
            }

            @Override
            public Optional<String> takeCode(String codeHash, Instant now) {
                Map.Entry<String, Instant> e = codes.remove(codeHash);
                return e == null || !now.isBefore(e.getValue()) ? Optional.empty() : Optional.of(e.getKey());
            }
        };
    }
}
