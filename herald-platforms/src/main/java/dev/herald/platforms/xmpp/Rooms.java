package dev.herald.platforms.xmpp;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The configured multi-user chat rooms and what this connection knows of them: whether Herald is in the room, and
 * each occupant's real JID when the room shows it (non-anonymous rooms, or to a moderator). Written by the
 * connection's reader, read by senders; cleared when a connection ends (the next one joins again).
 */
final class Rooms {
    private final Set<String> configured;
    private final String nick;
    private final Set<String> joined = ConcurrentHashMap.newKeySet();
    private final Map<String, Map<String, String>> realJids = new ConcurrentHashMap<>();

    Rooms(Set<String> configured, String nick) {
        this.configured = Set.copyOf(configured);
        this.nick = nick;
    }

    Set<String> configured() {
        return configured;
    }

    String nick() {
        return nick;
    }

    /** True when {@code bare} is one of the configured rooms. */
    boolean isRoom(String bare) {
        return configured.contains(bare);
    }

    boolean joined(String room) {
        return joined.contains(room);
    }

    void joinedNow(String room) {
        joined.add(room);
    }

    void left(String room) {
        joined.remove(room);
        realJids.remove(room);
    }

    /** Notes the occupant {@code occupantNick}'s real bare JID (null: hidden), or that it left. */
    void occupant(String room, String occupantNick, String realBare, boolean present) {
        Map<String, String> m = realJids.computeIfAbsent(room, r -> new ConcurrentHashMap<>());
        if (present && realBare != null) {
            m.put(occupantNick, realBare);
        } else {
            m.remove(occupantNick);
        }
    }

    /** The occupant's real bare JID, when the room showed it. */
    Optional<String> realJid(String room, String occupantNick) {
        return Optional.ofNullable(realJids.getOrDefault(room, Map.of()).get(occupantNick));
    }

    /** A new connection: no room is joined yet. */
    void reset() {
        joined.clear();
        realJids.clear();
    }
}
