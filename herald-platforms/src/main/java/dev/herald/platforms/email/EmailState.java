package dev.herald.platforms.email;

import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the email platform keeps in the store ({@link PlatformState}, the same on every node): the IMAP cursor
 * ({@code UIDVALIDITY:UID} of the last mail handled, moved only after the gateway took the mail) and, per thread, the
 * subject and References a reply needs ({@code thread:<id>}, written before the mail is handed over, so that a reply,
 * a resumed one too, always finds them).
 */
final class EmailState {
    static final String CURSOR = "cursor";
    static final String THREAD = "thread:";

    /** Where reading continues: the folder's UIDVALIDITY and the last UID handled. */
    record Cursor(long uidValidity, long lastUid) {
        static Optional<Cursor> parse(String s) {
            int colon = s == null ? -1 : s.indexOf(':');
            if (colon < 0) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Cursor(Long.parseLong(s.substring(0, colon)), Long.parseLong(s.substring(colon + 1))));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }

        @Override
        public String toString() {
            return uidValidity + ":" + lastUid;
        }
    }

    /** A thread as a reply needs it: the subject to answer with "Re:" and the ids for References. */
    record Thread(String subject, List<String> references) {
    }

    private final Platform platform;
    private final PlatformState store;

    EmailState(Platform platform, PlatformState store) {
        this.platform = platform;
        this.store = store;
    }

    Optional<Cursor> cursor() {
        return store.get(platform, CURSOR).flatMap(Cursor::parse);
    }

    void advance(Cursor c) {
        store.put(platform, Map.of(CURSOR, c.toString()));
    }

    void thread(String threadId, Thread t) {
        store.put(platform, Map.of(THREAD + threadId, t.subject().replace('\n', ' ') + "\n" + String.join(" ", t.references())));
    }

    Optional<Thread> thread(String threadId) {
        if (threadId == null) {
            return Optional.empty();
        }
        return store.get(platform, THREAD + threadId).map(v -> {
            int nl = v.indexOf('\n');
            String subject = nl < 0 ? v : v.substring(0, nl);
            List<String> refs = new ArrayList<>();
            if (nl >= 0) {
                for (String id : v.substring(nl + 1).split(" ")) {
                    if (!id.isBlank()) {
                        refs.add(id);
                    }
                }
            }
            return new Thread(subject, refs);
        });
    }
}
