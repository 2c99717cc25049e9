package dev.herald.core.session;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The durable name of one conversation lane, derived from where messages come from, for example
 * {@code agent:main:telegram:dm:123} or {@code agent:main:discord:group:g1:topic-7}.
 *
 * <p>Layout: {@code <namespace>:<platform>:<chat_type>[:<chat_id>][:<thread_id>][:<user_id>]}.
 * Direct messages are one lane per chat (plus thread). Groups and channels are one lane per user
 * unless {@link KeyPolicy#groupSessionsPerUser()} is off; a thread inside a group is shared by
 * everyone in it unless {@link KeyPolicy#threadSessionsPerUser()} is on. Build keys only through
 * {@link #of(SessionSource, KeyPolicy)}; never by hand.
 */
public record SessionKey(String value) implements Comparable<SessionKey> {

    public SessionKey {
        Objects.requireNonNull(value, "session key");
        if (value.isBlank() || value.length() > 512) {
            throw new IllegalArgumentException("session key must be 1-512 characters");
        }
        if (value.contains("..") || value.contains("\\") || value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("session key '" + value + "' contains '..', a backslash or a control character");
        }
    }

    /** How sources map to keys. */
    public record KeyPolicy(String namespace, boolean groupSessionsPerUser, boolean threadSessionsPerUser) {
        public KeyPolicy {
            Objects.requireNonNull(namespace, "namespace");
        }

        /** {@code agent:main}, groups per user, threads shared. */
        public static KeyPolicy defaults() {
            return new KeyPolicy("agent:main", true, false);
        }
    }

    public static SessionKey of(SessionSource source) {
        return of(source, KeyPolicy.defaults());
    }

    public static SessionKey of(SessionSource source, KeyPolicy policy) {
        List<String> parts = new ArrayList<>(6);
        parts.add(policy.namespace());
        parts.add(source.platform().id());
        parts.add(source.chatType().wire());
        if (source.chatType().isDirect()) {
            parts.add(source.chatId());
            if (source.threadId() != null) {
                parts.add(source.threadId());
            }
            return new SessionKey(String.join(":", parts));
        }
        parts.add(source.chatId());
        boolean inThread = source.threadId() != null;
        if (inThread) {
            parts.add(source.threadId());
        }
        boolean perUser = policy.groupSessionsPerUser() && !(inThread && !policy.threadSessionsPerUser());
        if (perUser && source.userId() != null) {
            parts.add(source.userId());
        }
        return new SessionKey(String.join(":", parts));
    }

    @Override
    public int compareTo(SessionKey o) {
        return value.compareTo(o.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
