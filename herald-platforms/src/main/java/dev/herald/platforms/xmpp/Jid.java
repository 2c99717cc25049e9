package dev.herald.platforms.xmpp;

import java.util.Locale;

/**
 * A Jabber id, {@code local@domain/resource}: the local part and the domain compared in lower case (as the server
 * does for the ASCII addresses people use; full stringprep is not applied), the resource as written.
 *
 * @param local    the local part, or "" for a server or a component
 * @param domain   the domain, never empty
 * @param resource the resource (a client's, or a room occupant's nick), or ""; never with control characters
 */
record Jid(String local, String domain, String resource) {
    /** The longest JID Herald reads; RFC 7622 allows 1023 bytes per part, real addresses are far shorter. */
    static final int MAX = 3071;

    /** The JID in {@code text}, or null when it is not one (empty domain, empty local part before '@', too long). */
    static Jid parse(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX || text.chars().anyMatch(Character::isISOControl)) {
            return null; // no JID part may hold a control character; such a sender is not trusted
        }
        int slash = text.indexOf('/');
        String bare = slash < 0 ? text : text.substring(0, slash);
        String resource = slash < 0 ? "" : text.substring(slash + 1);
        int at = bare.indexOf('@');
        String local = at < 0 ? "" : bare.substring(0, at);
        String domain = at < 0 ? bare : bare.substring(at + 1);
        if (domain.isEmpty() || (at >= 0 && local.isEmpty()) || (slash >= 0 && resource.isEmpty()) || domain.contains("@")) {
            return null;
        }
        return new Jid(local.toLowerCase(Locale.ROOT), domain.toLowerCase(Locale.ROOT), resource);
    }

    /** {@code local@domain} (or the domain alone). */
    String bare() {
        return local.isEmpty() ? domain : local + "@" + domain;
    }

    boolean hasResource() {
        return !resource.isEmpty();
    }

    @Override
    public String toString() {
        return hasResource() ? bare() + "/" + resource : bare();
    }
}
