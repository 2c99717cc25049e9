package dev.herald.store.jdbc;

import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * What each chat chose for itself ({@code /voice}, ...), in the {@code chat_preferences} table: one row per lane and
 * name, written with an upsert both databases understand.
 */
public final class JdbcChatPreferences<C extends JdbcConn> implements ChatPreferences {
    private static final String SELECT = "SELECT value FROM chat_preferences WHERE session_key = ? AND name = ?";
    private static final String UPSERT = """
            INSERT INTO chat_preferences (session_key, name, value, set_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (session_key, name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at""";
    private static final String DELETE = "DELETE FROM chat_preferences WHERE session_key = ? AND name = ?";

    private final Transactions<C> tx;
    private final Clock clock;

    public JdbcChatPreferences(Transactions<C> tx, Clock clock) {
        this.tx = tx;
        this.clock = clock;
    }

    @Override
    public Optional<String> get(SessionKey key, String name) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(name, "name");
        return tx.read("session " + key, c -> c.one(SELECT, rs -> rs.getString(1), key.value(), name));
    }

    @Override
    public void set(SessionKey key, String name, String value) {
        Objects.requireNonNull(key, "key");
        ChatPreferences.check(name, value);
        tx.write("session " + key, c -> value == null
                ? c.update(DELETE, key.value(), name)
                : c.update(UPSERT, key.value(), name, value, Micros.of(Micros.now(clock))));
    }
}
