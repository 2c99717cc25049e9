package dev.herald.agent;

import dev.herald.agent.tool.FileLimits;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.ToolContext;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageEvent.MediaRef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files a chat's users send, saved into the conversation's workspace so that the agent's file tools can read them, and
 * each user message's attachments told to the model as lines naming the saved file's path, type and size.
 *
 * <p>Everything about an inbound file is hostile: its name, its declared type and size, its bytes. So the bytes are
 * fetched only through the platform's own {@link MediaFetcher} (which reaches only the platform's hosts) and at most
 * {@link FileLimits#maxFileBytes()} of them, and not at all when the workspace's files would pass
 * {@link FileLimits#maxWorkspaceBytes()}. The file is written under {@value #INBOX}/ as {@code <id>-<name>}: the id is
 * a hash of the platform's reference (stable, so a later turn finds the same file, and never the reference itself,
 * which may be a signed URL), the name is the sender's with every character outside letters, digits, {@code . _ -}
 * replaced, no leading dot, at most 80 characters, and an executable kind of name ({@code .sh}, {@code .exe}, ...)
 * or an executable's bytes (ELF, PE, Mach-O, a {@code #!} script) get {@code .download} appended. Files are created
 * mode 600 (never executable) and never through a symbolic link. The type the model is told comes from the bytes where
 * they say it (PDF, PNG, JPEG, GIF, WebP, OGG, MP3, MP4, ZIP), else the declared one, else
 * {@code application/octet-stream}.
 *
 * <p>Only the newest message's files are fetched; older messages name their file when it is still there. Thread-safe.
 */
final class InboundFiles {
    private static final Logger log = LoggerFactory.getLogger(InboundFiles.class);
    static final String INBOX = "inbox";
    private static final int MAX_NAME = 80;
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final Set<String> EXECUTABLE_EXTENSIONS = Set.of("sh", "bash", "zsh", "command", "exe", "com", "bat", "cmd", "ps1",
            "msi", "scr", "jar", "app", "run", "bin", "elf", "so", "dll", "dylib", "py", "pl", "rb", "php", "js", "vbs", "appimage", "deb", "rpm");

    private final Function<String, Optional<MediaFetcher>> fetchers;
    private final FileLimits limits;

    InboundFiles(Function<String, Optional<MediaFetcher>> fetchers, FileLimits limits) {
        this.fetchers = fetchers;
        this.limits = limits;
    }

    /**
     * The messages as the model sees them: each user message with attachments gets one line per file after its text.
     * {@code newest} (the index of the turn's own message, or -1) has its files fetched into the workspace first.
     */
    List<ChatMessage> describe(List<ChatMessage> messages, int newest, String platformId, ToolContext context) {
        List<ChatMessage> out = new java.util.ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            if (m.attachments().isEmpty() || m.role() != dev.herald.core.transcript.Role.USER) {
                out.add(m); // an answer's attachments are the files it sent: its send_file calls already say so
                continue;
            }
            StringBuilder text = new StringBuilder(m.content() == null ? "" : m.content());
            for (MediaRef ref : m.attachments()) {
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(i == newest ? save(ref, platformId, context) : saved(ref, context));
            }
            out.add(m.withContent(text.toString()));
        }
        return out;
    }

    /** The line for a file of an older message: its saved file when it is still there, else what it was. */
    private String saved(MediaRef ref, ToolContext context) {
        Optional<Path> file = existing(ref, context.workspace());
        if (file.isPresent()) {
            return line(file.get(), context.workspace());
        }
        return "[file not in the workspace: " + described(ref) + "]";
    }

    /** Fetches the file of {@code ref} into the workspace (unless it is there) and returns the model's line for it. */
    private String save(MediaRef ref, String platformId, ToolContext context) {
        Path workspace = context.workspace();
        Optional<Path> there = existing(ref, workspace);
        if (there.isPresent()) {
            return line(there.get(), workspace);
        }
        if (ref.size() > limits.maxFileBytes()) {
            log.info("agent - a file from {} was not saved: {} bytes declared, over agent.file_max_bytes ({})", platformId,
                    Texts.number(ref.size()), Texts.number(limits.maxFileBytes()));
            return "[file not saved: " + described(ref) + " is over the limit of " + Texts.number(limits.maxFileBytes())
                    + " bytes per file; tell the user]";
        }
        Optional<MediaFetcher> fetcher = fetchers.apply(platformId);
        if (fetcher.isEmpty()) {
            return "[file not saved: " + described(ref) + "; " + platformId + " does not let Herald fetch files]";
        }
        try {
            long used = usedBytes(workspace);
            long room = Math.min(limits.maxFileBytes(), limits.maxWorkspaceBytes() - used);
            if (room <= 0) {
                log.info("agent - a file from {} was not saved: the workspace holds {} bytes, agent.workspace_max_bytes is {}",
                        platformId, Texts.number(used), Texts.number(limits.maxWorkspaceBytes()));
                return "[file not saved: " + described(ref) + "; the workspace is full (" + Texts.number(used)
                        + " bytes, limit " + Texts.number(limits.maxWorkspaceBytes()) + "); tell the user]";
            }
            MediaFetcher.Fetched fetched = fetcher.get().fetch(ref, room);
            if (fetched.bytes().length > room) {
                throw new IOException(platformId + " - file of " + fetched.bytes().length + " bytes is over the limit of " + room);
            }
            Path file = write(context, fileName(ref, fetched.bytes()), fetched.bytes());
            return line(file, workspace);
        } catch (IOException | RuntimeException e) {
            log.warn("agent - a file from {} was not saved ({})", platformId, Texts.line(e.getMessage(), 200));
            String why = e.getMessage() != null && e.getMessage().contains("limit") ? " is over the size limit" : " could not be fetched";
            return "[file not saved: " + described(ref) + why + "; tell the user]";
        }
    }

    private static Path write(ToolContext context, String name, byte[] bytes) throws IOException {
        Path inbox = context.createWorkspace().resolve(INBOX);
        if (Files.isSymbolicLink(inbox) || Files.exists(inbox, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(inbox, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("agent - " + INBOX + " in the workspace is not a directory");
        }
        if (POSIX) {
            Files.createDirectories(inbox, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(inbox);
        }
        Path file = inbox.resolve(name);
        Path partial = inbox.resolve("." + name + ".part");
        Files.deleteIfExists(partial);
        if (POSIX) {
            Files.createFile(partial, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(partial);
        }
        Files.write(partial, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
        try {
            Files.move(partial, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            Files.deleteIfExists(partial);
        }
        return file;
    }

    /** The saved file of {@code ref}: the regular file (not a link) in the inbox whose name starts with its id. */
    private static Optional<Path> existing(MediaRef ref, Path workspace) {
        Path inbox = workspace.resolve(INBOX);
        if (!Files.isDirectory(inbox, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        String prefix = id(ref) + "-";
        try (Stream<Path> files = Files.list(inbox)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix) && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String line(Path file, Path workspace) {
        long size;
        byte[] head;
        try {
            size = Files.size(file);
            try (var in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                head = in.readNBytes(16);
            }
        } catch (IOException e) {
            return "[file not readable: " + workspace.relativize(file) + "]";
        }
        return "[file: " + file + " (" + typeOf(head, null) + ", " + Texts.number(size) + " bytes); read it with your file tools]";
    }

    private static String described(MediaRef ref) {
        StringBuilder sb = new StringBuilder(ref.kind());
        String name = ref.name() == null ? null : sanitise(ref.name());
        if (name != null && !name.isEmpty()) {
            sb.append(" \"").append(name).append('"');
        }
        if (ref.mimeType() != null && ref.mimeType().matches("[\\w.+-]+/[\\w.+-]+")) {
            sb.append(" (").append(ref.mimeType()).append(')');
        }
        if (ref.size() >= 0) {
            sb.append(", ").append(Texts.number(ref.size())).append(" bytes");
        }
        return sb.toString();
    }

    /** The workspace's file name for {@code ref}: its id, then its sanitised name; executables are made inert by name. */
    static String fileName(MediaRef ref, byte[] bytes) {
        String name = ref.name() == null ? "" : sanitise(ref.name());
        if (name.isEmpty()) {
            name = ref.kind().replaceAll("[^A-Za-z0-9_-]", "_") + extensionFor(typeOf(bytes, ref.mimeType()));
        }
        if (executableName(name) || executableBytes(bytes)) {
            name = name + ".download";
        }
        return id(ref) + "-" + name;
    }

    /**
     * The sender's file name made safe: the last path segment only, every character but letters, digits, '.', '_' and
     * '-' replaced by '_', no leading dots or underscores from them, at most {@value #MAX_NAME} characters (keeping the
     * extension); empty when nothing is left.
     */
    static String sanitise(String raw) {
        String base = raw.replace('\\', '/');
        base = base.substring(base.lastIndexOf('/') + 1);
        StringBuilder sb = new StringBuilder(base.length());
        base.codePoints().forEach(c -> sb.append(c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-') ? (char) c : '_'));
        String name = sb.toString().replaceAll("^[._-]+", "").replaceAll("\\.{2,}", ".");
        if (name.replace("_", "").isEmpty()) {
            return "";
        }
        if (name.length() > MAX_NAME) {
            int dot = name.lastIndexOf('.');
            String ext = dot > 0 && name.length() - dot <= 10 ? name.substring(dot) : "";
            name = name.substring(0, MAX_NAME - ext.length()) + ext;
        }
        return name;
    }

    private static boolean executableName(String name) {
        int dot = name.lastIndexOf('.');
        return dot >= 0 && EXECUTABLE_EXTENSIONS.contains(name.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    private static boolean executableBytes(byte[] b) {
        return starts(b, 0x7f, 'E', 'L', 'F') || starts(b, 'M', 'Z') || starts(b, '#', '!')
                || starts(b, 0xcf, 0xfa, 0xed, 0xfe) || starts(b, 0xfe, 0xed, 0xfa, 0xcf) || starts(b, 0xca, 0xfe, 0xba, 0xbe);
    }

    /** The type the bytes show, else {@code declared} when it is a well-formed media type, else application/octet-stream. */
    static String typeOf(byte[] b, String declared) {
        if (starts(b, '%', 'P', 'D', 'F', '-')) {
            return "application/pdf";
        }
        if (starts(b, 0x89, 'P', 'N', 'G')) {
            return "image/png";
        }
        if (starts(b, 0xff, 0xd8, 0xff)) {
            return "image/jpeg";
        }
        if (starts(b, 'G', 'I', 'F', '8')) {
            return "image/gif";
        }
        if (starts(b, 'R', 'I', 'F', 'F') && b.length >= 12 && b[8] == 'W' && b[9] == 'E' && b[10] == 'B' && b[11] == 'P') {
            return "image/webp";
        }
        if (starts(b, 'O', 'g', 'g', 'S')) {
            return "audio/ogg";
        }
        if (starts(b, 'I', 'D', '3') || starts(b, 0xff, 0xfb)) {
            return "audio/mpeg";
        }
        if (b.length >= 8 && b[4] == 'f' && b[5] == 't' && b[6] == 'y' && b[7] == 'p') {
            return "video/mp4";
        }
        if (starts(b, 'P', 'K', 3, 4)) {
            return "application/zip";
        }
        if (executableBytes(b)) {
            return "application/octet-stream";
        }
        if (declared != null && declared.matches("[\\w.+-]+/[\\w.+-]+") && !declared.startsWith("image/")) {
            return declared.toLowerCase(Locale.ROOT);
        }
        return b.length > 0 && new String(b, StandardCharsets.UTF_8).chars().allMatch(c -> c >= 9 && c != 0xfffd) ? "text/plain"
                : "application/octet-stream";
    }

    private static String extensionFor(String type) {
        return switch (type) {
            case "application/pdf" -> ".pdf";
            case "image/png" -> ".png";
            case "image/jpeg" -> ".jpg";
            case "image/gif" -> ".gif";
            case "image/webp" -> ".webp";
            case "audio/ogg" -> ".ogg";
            case "audio/mpeg" -> ".mp3";
            case "video/mp4" -> ".mp4";
            case "application/zip" -> ".zip";
            case "text/plain" -> ".txt";
            default -> ".bin";
        };
    }

    private static boolean starts(byte[] b, int... magic) {
        if (b.length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if ((b[i] & 0xff) != magic[i]) {
                return false;
            }
        }
        return true;
    }

    /** A stable id of the platform's reference, which itself never reaches the disk (it may be a signed URL). */
    static String id(MediaRef ref) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(ref.ref().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bytes of the workspace's regular files (links are not followed). */
    private static long usedBytes(Path workspace) throws IOException {
        if (!Files.isDirectory(workspace, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        long[] total = {0};
        Files.walkFileTree(workspace, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    total[0] += attrs.size();
                }
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        return total[0];
    }
}
