package dev.herald.web.chat;

import dev.herald.core.account.Account;
import dev.herald.core.account.Accounts;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.session.SessionSource;
import java.util.Objects;
import java.util.Optional;

/**
 * The gateway's authorizer, plus: in the web chat, a conversation of an enabled admin account ({@code u:<name>}) is an
 * admin's, so its chat commands are an admin's ({@code /schedule list all}, managing any job, ...). Whose a message is
 * follows the conversation's owner (an admin writing in another person's conversation writes as that person there).
 * Everything else is the inner authorizer's answer. Fails closed: an account that cannot be read is not an admin.
 */
public final class WebChatAdmins implements Authorizer {
    private static final String ACCOUNT = "u:";

    private final Authorizer inner;
    private final Accounts accounts;

    public WebChatAdmins(Authorizer inner, Accounts accounts) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.accounts = Objects.requireNonNull(accounts, "accounts");
    }

    @Override
    public boolean isAuthorized(SessionSource source) {
        return inner.isAuthorized(source);
    }

    @Override
    public boolean isAdmin(SessionSource source) {
        return inner.isAdmin(source) || accountAdmin(source);
    }

    @Override
    public Optional<String> refusalReply(SessionSource source) {
        return inner.refusalReply(source);
    }

    /**
     * Whether the sender of a turn may approve dangerous tool calls: anyone but a web account that is not an admin (in the
     * web chat, or over the API with its key), unless {@code usersMay}. Such calls run as Herald's system user, which can
     * read every account's conversations, so by default only admins decide them.
     */
    public static java.util.function.Predicate<SessionSource> approvers(Accounts accounts, boolean usersMay) {
        // a web account's own turns (web chat or API key) carry u:<name>; every other sender approves as before
        return source -> usersMay || !dev.herald.core.account.Identities.isAccount(dev.herald.core.account.Identities.identityOf(source))
                || enabledAdmin(accounts, source.userId());
    }

    private boolean accountAdmin(SessionSource source) {
        return WebChatPlatform.PLATFORM.equals(source.platform()) && source.userId() != null && source.userId().startsWith(ACCOUNT)
                && enabledAdmin(accounts, source.userId());
    }

    /** Whether {@code userId} ({@code u:<name>}) is an enabled admin account; false when the store cannot say. */
    private static boolean enabledAdmin(Accounts accounts, String userId) {
        try {
            return accounts.find(userId.substring(ACCOUNT.length())).filter(a -> !a.disabled()).map(Account::admin).orElse(false);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
