package dev.herald.app;

import dev.herald.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * Herald's home folder: configuration, database and logs. Resolved as {@code --home}, else
 * {@code $HERALD_HOME}, else {@code ~/.herald}; created on first run readable by its owner only (700),
 * because it holds conversations and keys.
 */
final class HeraldHome {
    static final String ENV = "HERALD_HOME";

    private HeraldHome() {
    }

    static Path resolve(Path option, Map<String, String> env, Path userHome) {
        Path chosen;
        if (option != null) {
            chosen = option;
        } else {
            String fromEnv = env.get(ENV);
            chosen = fromEnv == null || fromEnv.isBlank() ? userHome.resolve(".herald") : expandTilde(fromEnv.strip(), userHome);
        }
        return chosen.toAbsolutePath().normalize();
    }

    /** Creates {@code dir} (and missing parents) with mode 700 when it does not exist yet. */
    static Path create(Path dir) {
        if (Files.isDirectory(dir)) {
            return dir;
        }
        if (Files.exists(dir)) {
            throw new ConfigException("home - " + dir + " exists but is not a folder; pass --home DIR or set " + ENV);
        }
        try {
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
            return dir;
        } catch (IOException e) {
            throw new IllegalStateException("home - cannot create " + dir + " (" + e + "); pass --home DIR or set " + ENV, e);
        }
    }

    private static Path expandTilde(String path, Path userHome) {
        if (path.equals("~")) {
            return userHome;
        }
        return path.startsWith("~/") ? userHome.resolve(path.substring(2)) : Path.of(path);
    }
}
