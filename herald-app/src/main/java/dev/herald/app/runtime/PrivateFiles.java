package dev.herald.app.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files only their owner may read (mode 600 in folders of mode 700), written atomically: a temporary file
 * beside the target, then a rename, so a reader (or a crash) never sees half a file. The temporary file is
 * created with mode 600, so not even for a moment is the content readable by others, whatever the umask. For
 * every file Herald keeps in its home: pairing codes and paired users, home channels, the pid and status files.
 */
public final class PrivateFiles {
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private PrivateFiles() {
    }

    /** The attributes that make a new file readable by its owner only (none off POSIX). */
    static FileAttribute<?>[] ownerOnly() {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }

    /** Creates {@code dir} and its missing parents with mode 700 when missing; an existing folder keeps its mode. */
    public static Path folder(Path dir) {
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

    /** Creates an empty {@code file} with mode 600 when it does not exist yet; an existing file is left as it is. */
    public static void touch(Path file) {
        try {
            if (!Files.exists(file)) {
                Files.createFile(file, ownerOnly());
            }
        } catch (java.nio.file.FileAlreadyExistsException raced) {
            // created meanwhile: fine
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + file + " (" + e.getMessage() + ")", e);
        }
    }

    /** Replaces {@code target} with {@code bytes} in one step; the file is readable by its owner only. */
    static void write(Path target, byte[] bytes) {
        folder(target.toAbsolutePath().getParent());
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(tmp); // a crash's leftover, possibly of another mode
            try (SeekableByteChannel out = Files.newByteChannel(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    ownerOnly())) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
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
