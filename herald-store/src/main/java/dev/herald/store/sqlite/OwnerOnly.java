package dev.herald.store.sqlite;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Creates the store's files readable by their owner only (folders 700, files 600), whatever the process's
 * umask: the database holds every conversation. Existing folders and files keep their mode (an operator may
 * have chosen it; Herald warns about a readable one at start). On a file system without POSIX permissions
 * these are plain creations.
 */
final class OwnerOnly {
    static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");

    private OwnerOnly() {
    }

    /** Creates {@code dir} and its missing parents with mode 700; an existing folder is left as it is. */
    static void folder(Path dir) throws IOException {
        if (dir == null || Files.isDirectory(dir)) {
            return;
        }
        if (POSIX) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(FOLDER));
        } else {
            Files.createDirectories(dir);
        }
    }

    /** Creates an empty {@code file} with mode 600 when it does not exist; returns whether it created it. */
    static boolean file(Path file) throws IOException {
        try {
            Files.createFile(file, attributes(FILE));
            return true;
        } catch (FileAlreadyExistsException exists) {
            return false;
        }
    }

    /** The attribute that gives a new file {@code permissions}, or none off POSIX. */
    static FileAttribute<?>[] attributes(Set<PosixFilePermission> permissions) {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)} : new FileAttribute<?>[0];
    }

    /**
     * Gives SQLite's side files ({@code -wal}, {@code -shm}) the database's own mode when the database is
     * private: SQLite creates them with the database's mode, but files left by an earlier run may be wider.
     */
    static void sideFilesLike(Path db) throws IOException {
        if (!POSIX || !Files.exists(db)) {
            return;
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(db);
        if (!FILE.containsAll(mode)) {
            return;
        }
        for (String suffix : new String[] {"-wal", "-shm", "-journal"}) {
            Path side = db.resolveSibling(db.getFileName() + suffix);
            if (Files.exists(side) && !Files.getPosixFilePermissions(side).equals(mode)) {
                Files.setPosixFilePermissions(side, mode);
            }
        }
    }
}
