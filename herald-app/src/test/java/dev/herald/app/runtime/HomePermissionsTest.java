package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.StoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up warnings about a home or database other users can read, each with the command that fixes it. */
class HomePermissionsTest {
    @TempDir
    Path parent;

    private StoreConfig sqlite(Path db) {
        return StoreConfig.defaults().resolvedIn(db.getParent());
    }

    @Test
    void openHomeAndReadableDatabase_areEachWarnedAboutWithTheirChmod() throws Exception {
        Path home = Files.createDirectories(parent.resolve("my home"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-x---"));
        Path db = Files.writeString(home.resolve("herald.db"), "");
        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-r--r--"));

        assertThat(HomePermissions.warnings(home, sqlite(db))).containsExactly(
                "home - " + home + " is open to other users of this machine (mode 750): they can list it and read what is not private"
                        + " in it; run: chmod 700 '" + home + "'",
                "store - " + db + " is open to other users of this machine (mode 644): it holds every conversation; run: chmod 600 '"
                        + db + "'*");
    }

    @Test
    void privateHomeAndDatabase_orNoDatabaseYet_giveNoWarning() throws Exception {
        Path home = Files.createDirectories(parent.resolve("h"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));

        assertThat(HomePermissions.warnings(home, sqlite(home.resolve("herald.db")))).isEmpty();
        Files.createFile(home.resolve("herald.db"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        assertThat(HomePermissions.warnings(home, sqlite(home.resolve("herald.db")))).isEmpty();
    }
}
