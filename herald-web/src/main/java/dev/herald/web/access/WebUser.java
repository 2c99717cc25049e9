package dev.herald.web.access;

import dev.herald.core.account.Account;

/**
 * Who a web request is: a signed-in account, or, before any account exists, the one user of the pages (whoever passes
 * the loopback rule or holds the configured key), who is an admin. {@link #owner()} is what the web chat stores as a
 * conversation's user id: {@code u:<name>} for an account, {@value #SINGLE_USER} for the one user (so the
 * conversations of an install from before accounts belong to nobody but the admins).
 */
public record WebUser(String name, boolean admin, boolean account) {
    /** The user id of the one user's conversations (the web chat's only user before accounts). */
    public static final String SINGLE_USER = "web";
    /** The one user of the pages while no account exists. */
    public static final WebUser ONLY = new WebUser(SINGLE_USER, true, false);

    public static WebUser of(Account a) {
        return new WebUser(a.name(), a.admin(), true);
    }

    /** The user id this person's web chat conversations carry. */
    public String owner() {
        return account ? "u:" + name : SINGLE_USER;
    }

    /** Whether this person may see a conversation whose stored user id is {@code owner}: an admin every one, others their own. */
    public boolean mayOpen(String owner) {
        return admin || owner().equals(owner);
    }

    public String role() {
        return admin ? "admin" : "user";
    }
}
