package dev.herald.app.runtime;

import dev.herald.store.StoreConfig;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns at start when the home or the SQLite database is open to other users of the machine, with the command
 * that closes it. Herald creates its own files owner-only, but it does not change the mode of a folder or file
 * that already existed: the operator may have chosen it (a backup group, a shared folder), and a warning they
 * can act on is better than a silent chmod.
 */
public final class HomePermissions {
    private static final Logger log = LoggerFactory.getLogger("runtime");
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);

    private HomePermissions() {
    }

    /** Logs one warning per open path (the home, the database); nothing on a file system without POSIX modes. */
    public static void warnIfOpen(Path home, StoreConfig store) {
        warnings(home, store).forEach(log::warn);
    }

    /** The warnings {@link #warnIfOpen} logs. */
    public static List<String> warnings(Path home, StoreConfig store) {
        List<String> out = new ArrayList<>();
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return out;
        }
        mode(home).filter(HomePermissions::open).ifPresent(m -> out.add("home - " + home + " is open to other users of this machine (mode "
                + octal(m) + "): they can list it and read what is not private in it; run: chmod 700 " + quote(home)));
        if (store.path() != null) {
            Path db = store.path();
            mode(db).filter(HomePermissions::open).ifPresent(m -> out.add("store - " + db + " is open to other users of this machine (mode "
                    + octal(m) + "): it holds every conversation; run: chmod 600 " + quote(db) + "*"));
        }
        return out;
    }

    private static java.util.Optional<Set<PosixFilePermission>> mode(Path p) {
        try {
            return Files.exists(p) ? java.util.Optional.of(Files.getPosixFilePermissions(p)) : java.util.Optional.empty();
        } catch (IOException e) {
            return java.util.Optional.empty();
        }
    }

    private static boolean open(Set<PosixFilePermission> mode) {
        return mode.stream().anyMatch(OTHERS::contains);
    }

    /** {@code rwxr-xr-x} as {@code 755}. */
    static String octal(Set<PosixFilePermission> mode) {
        String s = PosixFilePermissions.toString(mode);
        int value = 0;
        for (int i = 0; i < 9; i++) {
            value = value * 2 + (s.charAt(i) == '-' ? 0 : 1);
        }
        return String.format("%03o", value);
    }

    /** A path as a shell word: bare when it is plain, else in single quotes. */
    static String quote(Path p) {
        String s = p.toString();
        return s.matches("[A-Za-z0-9_./@%+=:,-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }
}
