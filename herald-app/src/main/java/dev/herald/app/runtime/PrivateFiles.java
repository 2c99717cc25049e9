package dev.herald.app.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Files only their owner may read (mode 600 in folders of mode 700), written atomically: a temporary file
 * beside the target, then a rename, so a reader (or a crash) never sees half a file. For state that holds
 * credentials or grants access: pairing codes and paired users, home channels.
 */
final class PrivateFiles {
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private PrivateFiles() {
    }

    /** Creates {@code dir} (mode 700) when missing. */
    static Path folder(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                if (POSIX) {
                    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectories(dir);
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + " (" + e.getMessage() + ")", e);
        }
    }

    /** Replaces {@code target} with {@code bytes} in one step; the file is readable by its owner only. */
    static void write(Path target, byte[] bytes) {
        folder(target.toAbsolutePath().getParent());
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.write(tmp, bytes);
            if (POSIX) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            }
            try {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + " (" + e.getMessage() + ")", e);
        }
    }
}
