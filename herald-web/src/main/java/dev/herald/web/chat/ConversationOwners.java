package dev.herald.web.chat;

import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.web.WebJson.BadRequest;
import dev.herald.web.access.WebUser;
import java.util.Optional;
import java.util.function.Function;

/**
 * Whose a web chat conversation is: the user id its stored session carries ({@link WebUser#owner()}: {@code u:<name>}
 * for an account, {@code web} for the one user from before accounts). The one check every chat route makes: a person
 * who may not open a stored conversation (not theirs, and not an admin) gets 404, as for an id that names nothing, on
 * the transcript, the stream, sends, renames, deletes and the files its answers sent. A conversation not stored yet
 * belongs to whoever sends its first message; its id is random and shown to nobody else.
 *
 * <p>Uploads: the media store keeps who uploaded each file beside it ({@link dev.herald.web.MediaStore#owner}), also
 * across a restart; only the uploader (or an admin) may attach it, and anyone else is answered as for a reference that
 * names nothing. A file with no owner kept (an upload from before owners were kept) may be attached by admins only.
 */
final class ConversationOwners {
    private static final String NOT_FOUND = "no such conversation";

    private final Storage storage;
    private final Function<String, SessionKey> keyOf;

    ConversationOwners(Storage storage, Function<String, SessionKey> keyOf) {
        this.storage = storage;
        this.keyOf = keyOf;
    }

    /** The stored session of {@code conversation} when {@code viewer} may open it; empty when it is not stored; else 404. */
    Optional<SessionEntry> open(WebUser viewer, String conversation) {
        Optional<SessionEntry> entry = storage.sessions().find(keyOf.apply(conversation));
        if (entry.isPresent() && !viewer.mayOpen(ownerOf(entry.get()))) {
            throw new BadRequest(404, NOT_FOUND);
        }
        return entry;
    }

    /** The user id a new message of {@code conversation} from {@code viewer} carries: its owner's (an admin writing keeps it theirs). */
    String senderId(WebUser viewer, String conversation) {
        return open(viewer, conversation).map(ConversationOwners::ownerOf).orElse(viewer.owner());
    }

    /** Whether {@code viewer} may see the stored session {@code entry} (the conversation list). */
    static boolean visible(WebUser viewer, SessionEntry entry) {
        return viewer.mayOpen(ownerOf(entry));
    }

    /** 404 unless {@code viewer} may open the conversation of turn {@code turnId} (a file its answer sent). */
    void requireTurn(WebUser viewer, long turnId) {
        if (viewer.admin()) {
            return;
        }
        Optional<SessionEntry> entry = storage.turns().find(turnId).map(TurnRecord::sessionKey).flatMap(storage.sessions()::find);
        if (entry.isEmpty() || !viewer.mayOpen(ownerOf(entry.get()))) {
            throw new BadRequest(404, "no such file: the link names no file this conversation was sent");
        }
    }

    /** Whether {@code viewer} may attach an upload whose kept owner is {@code owner} (empty: none kept): its uploader and admins. */
    static boolean mayAttach(WebUser viewer, Optional<String> owner) {
        return viewer.admin() || owner.isPresent() && viewer.mayOpen(owner.get());
    }

    private static String ownerOf(SessionEntry entry) {
        return entry.origin() == null ? WebUser.SINGLE_USER : entry.origin().userId();
    }
}
