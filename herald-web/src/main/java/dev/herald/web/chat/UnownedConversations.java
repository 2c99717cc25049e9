package dev.herald.web.chat;

import dev.herald.core.account.Account;
import dev.herald.core.memory.Memories;
import dev.herald.core.platform.ChatType;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.web.access.WebUser;
import java.util.Comparator;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web chat conversations from before accounts, which carry the one user's id ({@link WebUser#SINGLE_USER}), become
 * the first admin's: the admin account made first (earliest {@link Account#createdAt}, then name), whether made on the
 * first-run page, with the setup code, by an admin, by a first single sign-on or by {@code herald users add}. Their
 * scheduled jobs and what Herald remembers about the one user ({@link Memories}) go with them.
 *
 * <p>Run when an admin account is made and at every start (which also covers an admin made on the command line while
 * Herald was stopped, and a turn of such a conversation that was running at that moment and wrote its old user id
 * again). Idempotent: once given, none is left; a later admin never takes them, since the first admin stays the first.
 * New conversations never carry the one user's id once an account exists (every page then needs a signed-in account).
 */
public final class UnownedConversations {
    private static final Logger log = LoggerFactory.getLogger(UnownedConversations.class);

    private UnownedConversations() {
    }

    /** Gives the conversations without an owner (and their jobs) to the first admin, if there is one; returns that admin. */
    public static Optional<String> giveToFirstAdmin(Storage storage) {
        Optional<Account> first = storage.accounts().list().stream().filter(Account::admin)
                .min(Comparator.comparing(Account::createdAt).thenComparing(Account::name));
        if (first.isEmpty()) {
            return Optional.empty();
        }
        String owner = WebUser.of(first.get()).owner();
        int conversations = storage.sessions().reassignUser(WebChatPlatform.PLATFORM, WebUser.SINGLE_USER, owner);
        int jobs = storage.schedules().reassignUser(WebChatPlatform.PLATFORM, WebUser.SINGLE_USER, owner);
        int memories = storage.memories().reassign(memoryOwner(WebUser.SINGLE_USER), memoryOwner(owner));
        if (conversations > 0 || jobs > 0 || memories > 0) {
            log.info("webchat - {} conversation(s), {} scheduled job(s) and {} memories from before accounts are now the first "
                    + "admin's, '{}'", conversations, jobs, memories, first.get().name());
        }
        return Optional.of(first.get().name());
    }

    /** The memory owner key of the web chat's user {@code userId} ({@link Memories#ownerOf}). */
    private static String memoryOwner(String userId) {
        return Memories.ownerOf(new SessionSource(WebChatPlatform.PLATFORM, "any", ChatType.DM, userId, null, null, null));
    }
}
