package dev.herald.web.oidc;

import dev.herald.core.account.Account;
import dev.herald.core.account.Accounts;
import dev.herald.core.account.Role;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a provider's {@link IdTokenVerifier.Identity} is in Herald: the allow-list (e-mail domain, group), then the
 * account linked to its issuer and subject, made on the first sign-in. A link is kept in the store's
 * {@code platform_state} (platform {@code web_oidc}, name {@code link <sha256(issuer NUL subject)>}, value the
 * account name), so it follows {@code herald store copy} and backups like the accounts. A new account takes its name
 * from {@code preferred_username} or the e-mail's local part; a name already taken (by a password account or another
 * person) gets a number ({@code ann-2}): an existing account is never taken over by a matching name.
 *
 * <p>The role follows the provider's groups when {@code admin_groups} is set: decided when the account is made (admin for a
 * member of an admin group) and again at every sign-in, so leaving the admin group demotes at the next sign-in. Without
 * admin groups the account is made a user and keeps whatever role an admin gives it.
 * The password of such an account is a marker no password matches, so it signs in only through the provider (until an
 * admin sets a password).
 */
public final class OidcAccounts {
    private static final Logger log = LoggerFactory.getLogger(OidcAccounts.class);
    static final Platform PLATFORM = Platform.of("web_oidc");
    /** The password hash of an account made by single sign-on: not an Argon2id string, so no password matches it. */
    public static final String NO_PASSWORD = "!oidc";

    private final OidcSettings settings;
    private final Accounts accounts;
    private final PlatformState links;
    private final Clock clock;

    public OidcAccounts(OidcSettings settings, Accounts accounts, PlatformState links, Clock clock) {
        this.settings = settings;
        this.accounts = accounts;
        this.links = links;
        this.clock = clock;
    }

    /** The enabled account of {@code who}, made now on their first sign-in; an {@link OidcException} (403) when not let in. */
    public synchronized Account signIn(IdTokenVerifier.Identity who) {
        admit(who);
        String link = "link " + sha256(who.issuer() + "\0" + who.subject());
        Optional<Account> linked = links.get(PLATFORM, link).flatMap(accounts::find);
        if (linked.isPresent()) {
            if (linked.get().disabled()) {
                throw new OidcException(403, "your Herald account '" + linked.get().name() + "' is disabled; ask an admin to enable it");
            }
            return followGroups(linked.get(), who);
        }
        Role role = roleOf(who);
        String base = baseName(who);
        for (int n = 1; n <= 100; n++) {
            String name = n == 1 ? base : base + "-" + n;
            Account account = new Account(name, role, NO_PASSWORD, false, clock.instant(), 0);
            if (accounts.create(account)) {
                links.put(PLATFORM, Map.of(link, name));
                log.info("oidc - made account '{}' ({}) for a first sign-in through {}", name, role.wire(), settings.issuerText());
                return account;
            }
        }
        throw new OidcException(409, "no free account name near '" + base + "'; ask an admin to make your account");
    }

    /** The role the provider's groups give: admin for a member of an {@code admin_groups} group, else user. */
    private Role roleOf(IdTokenVerifier.Identity who) {
        return who.groups().stream().anyMatch(settings.adminGroups()::contains) ? Role.ADMIN : Role.USER;
    }

    /**
     * The linked account with the role its groups give now, when {@code admin_groups} is set: promoted or demoted (and
     * logged, naming the account only) when that differs from the stored role. Without admin groups the provider says
     * nothing about roles, and the role an admin gave stays.
     */
    private Account followGroups(Account account, IdTokenVerifier.Identity who) {
        if (settings.adminGroups().isEmpty()) {
            return account;
        }
        Role role = roleOf(who);
        if (role == account.role()) {
            return account;
        }
        accounts.setRole(account.name(), role);
        log.info("oidc - account '{}' is now {} (was {}): {} at this sign-in through {}", account.name(), role.wire(),
                account.role().wire(), role == Role.ADMIN ? "in an admin group" : "in no admin group", settings.issuerText());
        return new Account(account.name(), role, account.passwordHash(), account.disabled(), account.createdAt(), account.sessionEpoch());
    }

    private void admit(IdTokenVerifier.Identity who) {
        if (!settings.allowedEmailDomains().isEmpty()) {
            String email = who.email();
            int at = email == null ? -1 : email.lastIndexOf('@');
            if (at < 0) {
                throw new OidcException(403, "this Herald lets in e-mail addresses of " + String.join(", ", settings.allowedEmailDomains())
                        + " only, and the provider gave no e-mail address for you; ask your admin");
            }
            String domain = email.substring(at + 1).toLowerCase(Locale.ROOT);
            if (!settings.allowedEmailDomains().contains(domain)) {
                throw new OidcException(403, "your e-mail domain (" + OidcProvider.clip(domain) + ") is not allowed here; this Herald lets in "
                        + String.join(", ", settings.allowedEmailDomains()) + " only");
            }
            if (Boolean.FALSE.equals(who.emailVerified())) {
                throw new OidcException(403, "the provider says your e-mail address is not verified; verify it there and sign in again");
            }
        }
        if (!settings.allowedGroups().isEmpty() && who.groups().stream().noneMatch(settings.allowedGroups()::contains)
                && who.groups().stream().noneMatch(settings.adminGroups()::contains)) {
            throw new OidcException(403, "you are in none of the groups allowed here (" + String.join(", ", settings.allowedGroups())
                    + ", claim '" + settings.groupsClaim() + "'); ask your admin");
        }
    }

    /** An account name from the token: preferred_username, else the e-mail's local part, else "user"; cut to fit. */
    static String baseName(IdTokenVerifier.Identity who) {
        String raw = who.preferredUsername() != null ? who.preferredUsername()
                : who.email() != null && who.email().contains("@") ? who.email().substring(0, who.email().indexOf('@')) : "user";
        String name = raw.toLowerCase(Locale.ROOT).replaceAll("@.*$", "").replaceAll("[^a-z0-9_-]+", "-").replaceAll("^-+|-+$", "");
        if (name.length() > 28) {
            name = name.substring(0, 28);
        }
        return name.isEmpty() ? "user" : name;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
