package dev.herald.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
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
 *
 * <p>Who uploaded a file ({@link #put(byte[], String)}: the web chat's user id of the uploader) is kept beside it, in
 * {@code <id>.owner} (mode 600), so that the check "only its uploader may attach it" holds after a restart too. The
 * owner file is written before the reference is handed out; a file without one (an upload from before owners were kept,
 * an API image) has no owner ({@link #owner} is empty).
 */
public final class MediaStore {
    /** The prefix of this store's references. */
    public static final String PREFIX = "upload:";
    static final long MEMORY_BYTES = 64L * 1024 * 1024;
    private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private static final String OWNER_SUFFIX = ".owner";
    private static final int MAX_OWNER = 200;

    private final Map<String, byte[]> memory = new LinkedHashMap<>();
    private final Map<String, String> memoryOwners = new java.util.HashMap<>();
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

    /** Keeps {@code bytes} and returns the reference to store in their place ({@code upload:<id>}); no owner is kept. */
    public String put(byte[] bytes) throws IOException {
        return put(bytes, null);
    }

    /**
     * Keeps {@code bytes} uploaded by {@code owner} (a user id; null: none) and returns the reference to store in their
     * place ({@code upload:<id>}).
     */
    public String put(byte[] bytes, String owner) throws IOException {
        if (owner != null && (owner.isEmpty() || owner.length() > MAX_OWNER || owner.chars().anyMatch(c -> c < 0x20 || c == 0x7f))) {
            throw new IllegalArgumentException("media - an upload's owner must be 1-" + MAX_OWNER + " printable characters");
        }
        byte[] raw = new byte[16];
        RANDOM.nextBytes(raw);
        String id = HexFormat.of().formatHex(raw);
        if (dir == null) {
            synchronized (memory) {
                memory.put(id, bytes.clone());
                if (owner != null) {
                    memoryOwners.put(id, owner);
                }
                memoryBytes += bytes.length;
                var it = memory.entrySet().iterator();
                while (memoryBytes > MEMORY_BYTES && it.hasNext()) {
                    var eldest = it.next();
                    memoryBytes -= eldest.getValue().length;
                    memoryOwners.remove(eldest.getKey());
                    it.remove();
                }
            }
            return PREFIX + id;
        }
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        if (owner != null) {
            Path ownerFile = dir.resolve(id + OWNER_SUFFIX);
            Files.createFile(ownerFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(ownerFile, owner, StandardCharsets.UTF_8, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        }
        Path file = dir.resolve(id);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        return PREFIX + id;
    }

    /** Who uploaded {@code ref} ({@link #put(byte[], String)}), when it is one of this store's, kept, and has an owner. */
    public Optional<String> owner(String ref) throws IOException {
        Optional<String> id = id(ref);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        if (dir == null) {
            synchronized (memory) {
                return memory.containsKey(id.get()) ? Optional.ofNullable(memoryOwners.get(id.get())) : Optional.empty();
            }
        }
        Path ownerFile = dir.resolve(id.get() + OWNER_SUFFIX);
        if (!Files.isRegularFile(ownerFile, LinkOption.NOFOLLOW_LINKS) || Files.size(ownerFile) > MAX_OWNER * 4L) {
            return Optional.empty();
        }
        String owner = Files.readString(ownerFile, StandardCharsets.UTF_8);
        return owner.isEmpty() ? Optional.empty() : Optional.of(owner);
    }

    private static Optional<String> id(String ref) {
        if (ref == null || !ref.startsWith(PREFIX) || !ID.matcher(ref.substring(PREFIX.length())).matches()) {
            return Optional.empty();
        }
        return Optional.of(ref.substring(PREFIX.length()));
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
