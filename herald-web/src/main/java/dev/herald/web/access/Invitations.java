package dev.herald.web.access;

import dev.herald.core.account.Account;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Invitation links: an admin invites a name with a role, and the person who opens the link picks the password. The
 * account exists from the invitation on, with a password hash no password matches ({@link Account#INVITED}): the
 * SHA-256 of a random code and the expiry. The link carries the name and the code after {@code #}, so the code never
 * reaches a server log, a proxy or a {@code Referer}; the page sends it once, in the body of {@code POST /auth/invite}.
 * Taking the invitation sets the first password, which ends the invitation (one use), and signs the person in.
 * Inviting the name again replaces its code (the old link stops working).
 */
public final class Invitations {
    /** How long an invitation link works. */
    public static final Duration LIFETIME = Duration.ofDays(7);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Invitations() {
    }

    /** A new invitation: the code for the link (shown once) and the hash kept in the account's password column. */
    public record Invitation(String code, String passwordHash, Instant expiresAt) {
        /** The link's path and fragment for {@code name}: {@code /#invite=<name>.<code>}. */
        public String link(String name) {
            return "/#invite=" + name + "." + code;
        }
    }

    /** A new code for an invitation made at {@code now}. */
    public static Invitation create(Instant now) {
        byte[] raw = new byte[24];
        RANDOM.nextBytes(raw);
        String code = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        Instant expires = now.plus(LIFETIME);
        return new Invitation(code, Account.INVITED + sha256(code) + "$" + expires.getEpochSecond(), expires);
    }

    /** When the invitation of {@code account} ends, or null when it is not waiting for one (or the stored form is broken). */
    public static Instant expiresAt(Account account) {
        String[] parts = parts(account);
        return parts == null ? null : Instant.ofEpochSecond(Long.parseLong(parts[1]));
    }

    /** Whether {@code code} takes the invitation of {@code account} at {@code now}: its code, not expired. */
    static boolean matches(Account account, String code, Instant now) {
        String[] parts = parts(account);
        if (parts == null || code == null || code.isEmpty() || code.length() > 100) {
            return false;
        }
        boolean same = MessageDigest.isEqual(parts[0].getBytes(StandardCharsets.US_ASCII), sha256(code).getBytes(StandardCharsets.US_ASCII));
        return same && now.getEpochSecond() < Long.parseLong(parts[1]);
    }

    private static String[] parts(Account account) {
        if (!account.invited()) {
            return null;
        }
        String[] parts = account.passwordHash().substring(Account.INVITED.length()).split("\\$");
        if (parts.length != 2 || parts[0].length() != 64 || !parts[1].matches("[0-9]{1,12}")) {
            return null;
        }
        return parts;
    }

    private static String sha256(String code) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(code.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
