package dev.herald.store.ops;

import dev.herald.core.session.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/** Opening an existing Herald SQLite file read-only, beside a gateway that may be writing it (WAL readers never block it). */
final class SqliteFiles {
    private SqliteFiles() {
    }

    static PlainConn readOnly(Path file) {
        if (!Files.isRegularFile(file)) {
            throw StoreException.unavailable(file + " does not exist; check --home or store.path", null, false);
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setOpenMode(SQLiteOpenMode.READONLY);
        config.setBusyTimeout(10_000);
        try {
            Connection c = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
            PlainConn conn = new PlainConn(c);
            if (!conn.exists("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")) {
                conn.close();
                throw StoreException.unavailable(file + " is not a Herald database (no schema_version table)", null, false);
            }
            return conn;
        } catch (SQLException e) {
            throw StoreException.unavailable(file + " could not be opened as a SQLite database", e, false);
        }
    }
}
