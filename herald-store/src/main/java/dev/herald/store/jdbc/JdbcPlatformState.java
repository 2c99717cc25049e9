package dev.herald.store.jdbc;

import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/** Platforms' transport state in {@code platform_state}, one row per (platform, name), upserted. */
public final class JdbcPlatformState<C extends JdbcConn> implements PlatformState {
    private static final String UPSERT = """
            INSERT INTO platform_state (platform, name, value, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (platform, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at""";

    private final Transactions<C> tx;
    private final Clock clock;

    public JdbcPlatformState(Transactions<C> tx, Clock clock) {
        this.tx = tx;
        this.clock = clock;
    }

    @Override
    public Optional<String> get(Platform platform, String name) {
        Objects.requireNonNull(name, "name");
        return tx.read(platform + " state", c -> c.one("SELECT value FROM platform_state WHERE platform = ? AND name = ?",
                rs -> rs.getString(1), platform.id(), name));
    }

    @Override
    public Map<String, String> all(Platform platform) {
        return tx.read(platform + " state", c -> {
            Map<String, String> out = new TreeMap<>();
            for (String[] row : c.list("SELECT name, value FROM platform_state WHERE platform = ?",
                    rs -> new String[] {rs.getString(1), rs.getString(2)}, platform.id())) {
                out.put(row[0], row[1]);
            }
            return out;
        });
    }

    @Override
    public void put(Platform platform, Map<String, String> values) {
        if (values.isEmpty()) {
            return;
        }
        tx.write(platform + " state", c -> {
            long now = Micros.of(clock.instant());
            for (var e : new TreeMap<>(values).entrySet()) {
                c.update(UPSERT, platform.id(), e.getKey(), e.getValue(), now);
            }
            return null;
        });
    }
}
