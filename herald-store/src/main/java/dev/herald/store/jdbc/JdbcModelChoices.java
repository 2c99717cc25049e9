package dev.herald.store.jdbc;

import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * The model profile each lane chose ({@code /model}), in the {@code session_models} table: one row per lane that
 * chose one, written with an upsert both databases understand.
 */
public final class JdbcModelChoices<C extends JdbcConn> implements ModelChoiceStore {
    private static final String SELECT = "SELECT profile FROM session_models WHERE session_key = ?";
    private static final String UPSERT = """
            INSERT INTO session_models (session_key, profile, chosen_at) VALUES (?, ?, ?)
            ON CONFLICT (session_key) DO UPDATE SET profile = excluded.profile, chosen_at = excluded.chosen_at""";
    private static final String DELETE = "DELETE FROM session_models WHERE session_key = ?";

    private final Transactions<C> tx;
    private final Clock clock;

    public JdbcModelChoices(Transactions<C> tx, Clock clock) {
        this.tx = tx;
        this.clock = clock;
    }

    @Override
    public Optional<String> chosen(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.read("session " + key, c -> c.one(SELECT, rs -> rs.getString(1), key.value()));
    }

    @Override
    public void choose(SessionKey key, String profile) {
        Objects.requireNonNull(key, "key");
        tx.write("session " + key, c -> profile == null
                ? c.update(DELETE, key.value())
                : c.update(UPSERT, key.value(), profile, Micros.of(Micros.now(clock))));
    }
}
