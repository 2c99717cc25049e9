package dev.herald.core.account;

import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import dev.herald.core.session.SessionSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a chat user is across Herald: a chat identity ({@code telegram:12345}) linked to a web account speaks as that
 * account, so the account's memory is the same in the web chat, over its API keys and in every linked chat.
 *
 * <p>Linking takes both sides: {@code /link} in the chat gives the user a one-time code (proof of the chat identity), and
 * the user enters it in the web chat while signed in (proof of the account). Codes are 8 letters, valid for
 * {@link #CODE_TTL}, kept only as their SHA-256, and work once; the web side throttles wrong guesses.
 *
 * <p>{@link #ownerOf} is the key memories are kept under: {@code webchat:u:<account>} for an account (whether the turn
 * came from the web chat, an API key of the account, or a linked chat), {@code <platform>:<user id>} otherwise. Lookups
 * are cached for {@link #CACHE_FOR} (each turn asks once); a link or unlink made through this instance takes effect at
 * once, one made on another node of a cluster within that time.
 */
public final class Identities {
    private static final Logger log = LoggerFactory.getLogger(Identities.class);
    public static final Duration CODE_TTL = Duration.ofMinutes(10);
    static final Duration CACHE_FOR = Duration.ofSeconds(10);
    /** The owner-key prefix of a web account's own conversations ({@code webchat:u:<name>}). */
    public static final String ACCOUNT_OWNER = "webchat:u:";
    /** Platforms whose user ids name accounts themselves ({@code u:<name>}): nothing to link there. */
    private static final List<String> ACCOUNT_PLATFORMS = List.of("webchat", "api_server");
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

    private final IdentityLinks links;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final long cacheNanos;

    private record Cached(String account, long until) {
    }

    /** How entering a code ended. */
    public sealed interface Redeemed {
        /** {@code identity} now speaks as the account (or did already). */
        record Linked(String identity) implements Redeemed {
        }

        /** No such code, or it expired, or it was used. */
        record Unknown() implements Redeemed {
        }

        /** The identity is linked to another account already: that account must unlink it first. */
        record Elsewhere(String identity) implements Redeemed {
        }
    }

    public Identities(IdentityLinks links, Clock clock) {
        this(links, clock, CACHE_FOR);
    }

    Identities(IdentityLinks links, Clock clock, Duration cacheFor) {
        this.links = Objects.requireNonNull(links, "links");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.cacheNanos = cacheFor.toNanos();
    }

    /** Identities in memory only (tests). */
    public static Identities inMemory(Clock clock) {
        return new Identities(IdentityLinks.inMemory(), clock);
    }

    /** The chat identity of who wrote from {@code source}: {@code <platform>:<user id>}; null when the user is unknown. */
    public static String identityOf(SessionSource source) {
        return Memories.ownerOf(source);
    }

    /** Whether {@code identity} is a web account's own (the web chat, an API key): it is an account already. */
    public static boolean isAccount(String identity) {
        return identity != null && ACCOUNT_PLATFORMS.stream().anyMatch(p -> identity.startsWith(p + ":u:"));
    }

    /** The key memories of {@code identity} are kept under (see the class comment); null stays null. */
    public String ownerOf(String identity) {
        if (identity == null) {
            return null;
        }
        if (isAccount(identity)) {
            return ACCOUNT_OWNER + identity.substring(identity.indexOf(":u:") + 3);
        }
        return account(identity).map(a -> ACCOUNT_OWNER + a).orElse(identity);
    }

    /** The account {@code identity} speaks as: its own for a web identity, the linked one for a chat's. */
    public Optional<String> account(String identity) {
        if (identity == null) {
            return Optional.empty();
        }
        if (isAccount(identity)) {
            return Optional.of(identity.substring(identity.indexOf(":u:") + 3));
        }
        long now = System.nanoTime();
        Cached c = cache.get(identity);
        if (c == null || now - c.until() > 0) {
            c = new Cached(links.accountOf(identity).orElse(null), now + cacheNanos);
            cache.put(identity, c);
        }
        return Optional.ofNullable(c.account());
    }

    /** A new one-time code for {@code identity} (an earlier one stops working). Goes to the user only: never log it. */
    public String issueCode(String identity) {
        if (identity == null || isAccount(identity)) {
            throw new IllegalArgumentException("only a chat identity is linked to an account");
        }
        StringBuilder code = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            code.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        links.addCode(hash(code.toString()), identity, clock.instant().plus(CODE_TTL));
        log.info("account - link code issued to {} (valid {} min)", identity, CODE_TTL.toMinutes());
        return code.substring(0, 4) + "-" + code.substring(4);
    }

    /** Links the identity that asked for {@code code} to {@code account}; the code is used up whatever the outcome. */
    public Redeemed redeem(String account, String code) {
        Account.checkName(account);
        String normal = code == null ? "" : code.toUpperCase(Locale.ROOT).replaceAll("[\\s-]", "");
        if (normal.length() != 8 || normal.chars().anyMatch(ch -> ALPHABET.indexOf(ch) < 0)) {
            return new Redeemed.Unknown();
        }
        Optional<String> identity = links.takeCode(hash(normal), clock.instant());
        if (identity.isEmpty()) {
            return new Redeemed.Unknown();
        }
        String id = identity.get();
        if (!links.link(id, account, clock.instant())) {
            Optional<String> holder = links.accountOf(id);
            if (holder.isPresent() && !holder.get().equals(account)) {
                log.info("account - {} asked to link {}, which is linked to another account", account, id);
                return new Redeemed.Elsewhere(id);
            }
        }
        cache.remove(id);
        log.info("account - {} linked to account {}", id, account);
        return new Redeemed.Linked(id);
    }

    /** Removes the link of {@code identity} to {@code account} (to any account when null); false when there was none. */
    public boolean unlink(String identity, String account) {
        boolean removed = links.unlink(identity, account);
        cache.remove(identity);
        if (removed) {
            log.info("account - {} unlinked{}", identity, account == null ? "" : " from account " + account);
        }
        return removed;
    }

    /**
     * Whose turns are {@code account}'s: its own user id ({@code u:<name>}) on the web chat and the API, and the chat
     * identities in {@code linked} (its links).
     */
    public static List<dev.herald.core.turn.SenderUsage.Sender> senders(String account, List<IdentityLinks.Link> linked) {
        List<dev.herald.core.turn.SenderUsage.Sender> out = new java.util.ArrayList<>();
        ACCOUNT_PLATFORMS.forEach(p -> out.add(new dev.herald.core.turn.SenderUsage.Sender(p, "u:" + account)));
        for (IdentityLinks.Link l : linked) {
            int colon = l.identity().indexOf(':');
            if (colon > 0 && colon < l.identity().length() - 1) {
                out.add(new dev.herald.core.turn.SenderUsage.Sender(l.identity().substring(0, colon), l.identity().substring(colon + 1)));
            }
        }
        return out;
    }

    /** The identities linked to {@code account} (to every account when null). */
    public List<IdentityLinks.Link> links(String account) {
        return links.links(account);
    }

    /**
     * {@code store} seen through the links: every owner key is read as {@link #ownerOf} it, so a linked chat and its
     * account share one memory, and an unlinked chat keeps its own.
     */
    public Memories memories(Memories store) {
        return new Memories() {
            @Override
            public Memory add(String owner, String text, String source, Memory.Status status, Instant at) {
                return store.add(ownerOf(owner), text, source, status, at);
            }

            @Override
            public List<Memory> list(String owner, boolean withPending, int limit) {
                return store.list(ownerOf(owner), withPending, limit);
            }

            @Override
            public int count(String owner) {
                return store.count(ownerOf(owner));
            }

            @Override
            public boolean forget(String owner, long id) {
                return store.forget(ownerOf(owner), id);
            }

            @Override
            public boolean approve(String owner, long id) {
                return store.approve(ownerOf(owner), id);
            }

            @Override
            public int purge(String owner) {
                return store.purge(ownerOf(owner));
            }
        };
    }

    static String hash(String code) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(code.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
