package dev.herald.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database's files on disk: owner-only modes whatever the umask (the test JVM runs with the usual 022), and the
 * gateway's claim on the database, a lock file beside it.
 */
class SqliteFilesTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void open_inAnExistingOpenFolder_createsTheDatabaseWalAndShmOwnerOnly() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path db = dir.resolve("herald.db");

        try (SqliteStorage storage = SqliteStorage.open(db, clock)) {
            SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");
            storage.sessions().getOrCreate(SessionKey.of(source), source);

            assertThat(mode(db)).isEqualTo("rw-------");
            assertThat(mode(dir.resolve("herald.db-wal"))).isEqualTo("rw-------");
            assertThat(mode(dir.resolve("herald.db-shm"))).isEqualTo("rw-------");
        }
    }

    @Test
    void open_inAMissingFolder_createsTheFolderOwnerOnly() throws Exception {
        Path db = dir.resolve("data/deeper/herald.db");

        try (SqliteStorage ignored = SqliteStorage.open(db, clock)) {
            assertThat(mode(dir.resolve("data"))).isEqualTo("rwx------");
            assertThat(mode(dir.resolve("data/deeper"))).isEqualTo("rwx------");
        }
    }

    @Test
    void open_anExistingDatabase_keepsItsModeAndGivesLeftoverSideFilesTheDatabasesMode() throws Exception {
        Path db = dir.resolve("herald.db");
        SqliteStorage.open(db, clock).close();
        Files.writeString(dir.resolve("herald.db-shm"), "");
        Files.setPosixFilePermissions(dir.resolve("herald.db-shm"), PosixFilePermissions.fromString("rw-r--r--"));

        try (SqliteStorage ignored = SqliteStorage.open(db, clock)) {
            assertThat(mode(db)).isEqualTo("rw-------");
            assertThat(mode(dir.resolve("herald.db-shm"))).isEqualTo("rw-------");
        }
    }

    @Test
    void claim_whileAnotherGatewayHoldsTheDatabase_isRefusedNamingItsPid_andWorksOnceItIsReleased() throws Exception {
        Path db = dir.resolve("herald.db");

        try (SqliteOwner first = SqliteOwner.claim(db)) {
            assertThat(first.lockFile()).isEqualTo(dir.resolve("herald.db-lock"));
            assertThat(mode(first.lockFile())).isEqualTo("rw-------");
            assertThatThrownBy(() -> SqliteOwner.claim(db)).isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("store - " + db + " is in use by another Herald gateway (pid " + ProcessHandle.current().pid() + " on ")
                    .hasMessageEndingWith("; run one gateway per database");
            try (SqliteStorage reader = SqliteStorage.open(db, clock)) {
                assertThat(reader.sessions().count()).as("opening without claiming still works").isZero();
            }
        }

        try (SqliteOwner again = SqliteOwner.claim(db)) {
            assertThat(Files.readString(again.lockFile())).startsWith("pid " + ProcessHandle.current().pid() + " on ");
        }
    }

    @Test
    void claim_aDatabaseInAFolderThatCannotBeCreated_failsNamingTheLockFile() throws Exception {
        Files.writeString(dir.resolve("file"), "not a folder");

        assertThatThrownBy(() -> SqliteOwner.claim(dir.resolve("file/herald.db"))).isInstanceOf(StoreException.class)
                .hasMessageContaining("the lock file " + dir.resolve("file/herald.db-lock") + " could not be created or locked");
    }
}
