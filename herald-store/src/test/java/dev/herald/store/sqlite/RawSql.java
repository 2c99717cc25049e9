package dev.herald.store.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;

/** Opens the test database and, beside the store, reaches into it with plain JDBC. */
final class RawSql {
    private RawSql() {
    }

    static Path file(Path dir) {
        return dir.resolve("herald.db");
    }

    static SqliteStorage open(Path dir, Clock clock) {
        return SqliteStorage.open(file(dir), clock);
    }

    static int update(Path dir, String sql, Object... args) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file(dir)); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static String text(Path dir, String sql, Object... args) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file(dir)); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
