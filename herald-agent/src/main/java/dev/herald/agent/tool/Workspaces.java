package dev.herald.agent.tool;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The working directories of conversations under {@code agent.workspace_root}: created readable by their owner
 * only (mode 700, the root too), whatever the umask, since tools write conversation data there; and, for a
 * stateless turn (an API call without a session), removed when the turn ends, since nothing else will ever
 * use it. Removal never follows a symbolic link out of the workspace: a link is removed, not its target.
 */
public final class Workspaces {
    private static final Logger log = LoggerFactory.getLogger(Workspaces.class);
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private Workspaces() {
    }

    /** Creates {@code workspace} and its missing parents with mode 700; an existing one is left as it is. */
    static void create(Path workspace) throws IOException {
        if (Files.isDirectory(workspace)) {
            return;
        }
        if (POSIX) {
            Files.createDirectories(workspace, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(workspace);
        }
    }

    /** Removes {@code workspace} and everything in it; a failure is logged, never thrown. */
    public static void remove(Path workspace) {
        if (!Files.exists(workspace, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(workspace, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        throw e;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            log.warn("tool - the workspace {} of a stateless turn could not be removed ({}: {}); remove it by hand", workspace,
                    e.getClass().getSimpleName(), e.getMessage());
        }
    }
}
