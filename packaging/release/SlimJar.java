import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Removes from the release's copy of herald.jar the SQLite native libraries of every platform but the one the
 * release is for (linux-x64): the driver ships about 20 MB of them and loads only its own platform's.
 * Run by build.sh as a single-file program: {@code java SlimJar.java JAR KEEP_DIR}.
 */
public final class SlimJar {
    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]);
        String keep = args[1]; // e.g. org/sqlite/native/Linux/x86_64
        long before = Files.size(jar);
        int removed = 0;
        try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + jar.toUri()), Map.of())) {
            Path natives = zip.getPath("/org/sqlite/native");
            Path kept = zip.getPath("/" + keep);
            if (!Files.isDirectory(kept)) {
                throw new IllegalStateException("slim - " + jar + " has no /" + keep + "; the SQLite driver changed its layout");
            }
            List<Path> doomed;
            try (Stream<Path> all = Files.walk(natives)) {
                doomed = all.filter(p -> !p.startsWith(kept) && !kept.startsWith(p)) // Path.startsWith compares whole names
                        .sorted(Comparator.reverseOrder()).toList();
            }
            for (Path p : doomed) {
                Files.delete(p);
                removed++;
            }
        }
        System.out.printf("slim - removed %d other-platform SQLite entries from %s: %,d -> %,d bytes%n", removed, jar.getFileName(),
                before, Files.size(jar));
    }
}
