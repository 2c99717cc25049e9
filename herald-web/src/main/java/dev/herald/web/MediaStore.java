package dev.herald.web;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Images people sent to Herald itself (the web chat's upload button, an API session's {@code image_url} parts), kept
 * so that the transcript can hold a reference ({@code upload:<id>}) instead of the bytes, and a vision model can be
 * shown them later through the platform's {@link dev.herald.core.platform.MediaFetcher}. With a folder, each is a file
 * there (mode 600, named by a random 128-bit id, never by anything the sender chose); without one (tests) they are
 * kept in memory, at most {@value #MEMORY_BYTES} bytes, oldest dropped first.
 */
public final class MediaStore {
    /** The prefix of this store's references. */
    public static final String PREFIX = "upload:";
    static final long MEMORY_BYTES = 64L * 1024 * 1024;
    private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private final Map<String, byte[]> memory = new LinkedHashMap<>();
    private long memoryBytes;

    private MediaStore(Path dir) {
        this.dir = dir;
    }

    /** Files under {@code dir} (created with mode 700 when absent). */
    public static MediaStore in(Path dir) {
        return new MediaStore(dir);
    }

    public static MediaStore inMemory() {
        return new MediaStore(null);
    }

    /** Keeps {@code bytes} and returns the reference to store in their place ({@code upload:<id>}). */
    public String put(byte[] bytes) throws IOException {
        byte[] raw = new byte[16];
        RANDOM.nextBytes(raw);
        String id = HexFormat.of().formatHex(raw);
        if (dir == null) {
            synchronized (memory) {
                memory.put(id, bytes.clone());
                memoryBytes += bytes.length;
                var it = memory.entrySet().iterator();
                while (memoryBytes > MEMORY_BYTES && it.hasNext()) {
                    memoryBytes -= it.next().getValue().length;
                    it.remove();
                }
            }
            return PREFIX + id;
        }
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path file = dir.resolve(id);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        return PREFIX + id;
    }

    /** The bytes of {@code ref}, when it is one of this store's and still kept. */
    public Optional<byte[]> get(String ref) throws IOException {
        if (ref == null || !ref.startsWith(PREFIX) || !ID.matcher(ref.substring(PREFIX.length())).matches()) {
            return Optional.empty();
        }
        String id = ref.substring(PREFIX.length());
        if (dir == null) {
            synchronized (memory) {
                return Optional.ofNullable(memory.get(id)).map(byte[]::clone);
            }
        }
        Path file = dir.resolve(id);
        return Files.isRegularFile(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
    }
}
