package dev.herald.web.access;

import dev.herald.core.account.Account;
import dev.herald.core.account.Accounts;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Sign-in with web accounts ({@link Accounts}): password checks, session tokens that name their account, and the
 * one-time setup code of the first-run flow.
 *
 * <p>A token is {@code <expiry>.<nonce>.<name>.<epoch>.<HMAC-SHA256>} signed with the installation's session secret. It
 * is valid until its expiry, unless it was logged out ({@link SessionRevocations}), the account is disabled or gone, or
 * the account's session epoch moved (disable, password reset, "sign out everywhere": every copy of every token of the
 * account dies at once, on every node, also after a restart). Each check reads the account (one indexed row).
 *
 * <p>Accounts are "on" from the first account in the store; the answer is cached once true (accounts are disabled,
 * never deleted), so an account added by {@code herald users add} while Herald runs takes effect at the next request.
 */
public final class AccountSessions {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String SETUP_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

    private final Accounts accounts;
    private final byte[] secret;
    private final Clock clock;
    private final SessionRevocations revocations;
    private final String setupCode;
    private volatile boolean exist;

    /**
     * @param secret the installation's session secret (at least 32 bytes; tokens die when it changes)
     */
    public AccountSessions(Accounts accounts, byte[] secret, Clock clock, SessionRevocations revocations) {
        this.accounts = Objects.requireNonNull(accounts, "accounts");
        if (secret == null || secret.length < 32) {
            throw new IllegalArgumentException("web - the session secret must have at least 32 bytes");
        }
        this.secret = secret.clone();
        this.clock = Objects.requireNonNull(clock, "clock");
        this.revocations = Objects.requireNonNull(revocations, "revocations");
        StringBuilder code = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            code.append(SETUP_ALPHABET.charAt(RANDOM.nextInt(SETUP_ALPHABET.length())));
            if (i == 3 || i == 7) {
                code.append('-');
            }
        }
        this.setupCode = code.toString();
    }

    /** Accounts in memory with a random secret: for tests and embedded use. */
    public static AccountSessions inMemory(Clock clock) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        return new AccountSessions(Accounts.inMemory(), secret, clock, SessionRevocations.inMemory());
    }

    public Accounts accounts() {
        return accounts;
    }

    private volatile Runnable adminMade = () -> { };

    /** Runs {@code action} each time a route here makes an admin account (the web chat hands the first admin its conversations). */
    public void onAdminMade(Runnable action) {
        this.adminMade = Objects.requireNonNull(action, "action");
    }

    /** Called by the routes that make an admin account, after it is stored; a failure is logged, the account stays made. */
    public void adminMade() {
        try {
            adminMade.run();
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(AccountSessions.class).warn("web - an admin account was made, but what follows it failed "
                    + "(it is done again at the next start): {}", e.toString());
        }
    }

    /** Whether any account exists: from then on every page needs a signed-in account. */
    public boolean active() {
        if (exist) {
            return true;
        }
        boolean any = accounts.any();
        exist = any;
        return any;
    }

    /** Whether an enabled admin exists; until then the first-run flow may make one. */
    public boolean adminExists() {
        return accounts.anyAdmin();
    }

    /** This start's one-time setup code (12 letters and digits in groups of four), valid while no admin exists. */
    public String setupCode() {
        return setupCode;
    }

    /** Whether {@code code} is this start's setup code (case and dashes ignored), compared in constant time. */
    public boolean setupCodeMatches(String code) {
        if (code == null) {
            return false;
        }
        String a = code.replace("-", "").strip().toUpperCase(java.util.Locale.ROOT);
        String b = setupCode.replace("-", "");
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The enabled account {@code name} whose password is {@code password}; empty otherwise. An unknown name costs the
     * same hash as a known one, so the time taken says nothing about which names exist.
     */
    public Optional<Account> signIn(String name, String password) {
        Optional<Account> account = name == null || !Account.NAME.matcher(name.strip()).matches() ? Optional.empty()
                : accounts.find(name.strip());
        String stored = account.map(Account::passwordHash).orElse(PasswordHash.decoy());
        boolean matches = PasswordHash.matches(password, stored);
        return account.filter(a -> matches && !a.disabled());
    }

    /** A new session token for {@code account}, valid for {@link WebAccess#SESSION_LIFETIME} or until its epoch moves. */
    public String issue(Account account) {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        long expires = clock.instant().plus(WebAccess.SESSION_LIFETIME).getEpochSecond();
        String payload = expires + "." + B64.encodeToString(nonce) + "." + account.name() + "." + account.sessionEpoch();
        return payload + "." + sign(payload);
    }

    /** The account a token belongs to while it is valid (see the class comment); empty for anything else. */
    public Optional<WebUser> user(String token) {
        return parse(token).flatMap(t -> accounts.find(t.name())
                .filter(a -> !a.disabled() && a.sessionEpoch() == t.epoch())
                .map(WebUser::of));
    }

    /** Ends one session token (logout), also after a restart; anything that is not a valid token is ignored. */
    public void revoke(String token) {
        parse(token).ifPresent(t -> revocations.revoke(t.nonce(), t.expires(), clock.instant().getEpochSecond()));
    }

    private record Token(long expires, String nonce, String name, long epoch) {
    }

    private Optional<Token> parse(String token) {
        if (token == null || token.length() > 300) {
            return Optional.empty();
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 5) {
            return Optional.empty();
        }
        String payload = token.substring(0, token.lastIndexOf('.'));
        if (!MessageDigest.isEqual(sign(payload).getBytes(StandardCharsets.US_ASCII), parts[4].getBytes(StandardCharsets.US_ASCII))) {
            return Optional.empty();
        }
        try {
            Token t = new Token(Long.parseLong(parts[0]), parts[1], parts[2], Long.parseLong(parts[3]));
            if (t.expires() <= clock.instant().getEpochSecond() || revocations.isRevoked(t.nonce())) {
                return Optional.empty();
            }
            return Optional.of(t);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private String sign(String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return B64.encodeToString(mac.doFinal(("account session v1\n" + payload).getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
