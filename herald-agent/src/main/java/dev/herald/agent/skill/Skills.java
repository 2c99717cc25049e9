package dev.herald.agent.skill;

import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The skills under {@code $HERALD_HOME/skills}: one folder per skill holding a {@code SKILL.md} and maybe other files.
 * Every call looks at the folder again, but cheaply: a {@code SKILL.md} is read and parsed only when its modification
 * time or size changed, so a skill added or edited on disk is used by the next turn without a restart. A skill whose
 * file is invalid (front matter missing or bad, a name that is not its folder's, over {@link #MAX_SKILL_BYTES}, a
 * symbolic link) is skipped with one warning naming the file (again only when the file changes).
 *
 * <p>Nothing here runs anything: skills are text for the model. Files beside a {@code SKILL.md} are read only by a
 * relative path that stays inside the skill's folder, never through a symbolic link. The agent may write a skill only
 * when {@code agent.skills_writable} is on, and what it writes is validated as a file on disk is. Thread-safe.
 */
public final class Skills {
    private static final Logger log = LoggerFactory.getLogger(Skills.class);
    /** The largest {@code SKILL.md} read. */
    public static final int MAX_SKILL_BYTES = 64 * 1024;
    /** The largest other file of a skill the tool reads. */
    public static final int MAX_FILE_BYTES = 256 * 1024;
    /** Skills read at most (by folder name order); more are skipped with a warning. */
    public static final int MAX_SKILLS = 200;
    /** Files beside a SKILL.md listed at most. */
    static final int MAX_LISTED_FILES = 100;
    static final String FILE = "SKILL.md";

    private final Path root;
    private final boolean writable;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** A parsed file and the stamp it was parsed at; {@code problem} set when it is invalid. */
    private record Cached(long modified, long size, Skill skill, String problem) {
    }

    public Skills(Path root, boolean writable) {
        this.root = root.toAbsolutePath().normalize();
        this.writable = writable;
    }

    public Path root() {
        return root;
    }

    /** Whether the agent may create and change skills ({@code agent.skills_writable}). */
    public boolean writable() {
        return writable;
    }

    /** Reads every skill once and logs what was found; the warnings of invalid skills come from here at start-up. */
    public List<Skill> checkAtStart() {
        List<Skill> found = list();
        if (!Files.isDirectory(root)) {
            log.info("skills - no skills folder at {}; create {}/<name>/SKILL.md to add one", root, root);
        } else {
            log.info("skills - {} skill(s) in {}{}: {}", found.size(), root, writable ? " (the agent may add and change them)" : "",
                    String.join(", ", found.stream().map(Skill::name).toList()));
        }
        return found;
    }

    /** The valid skills now, by name. */
    public List<Skill> list() {
        List<Skill> skills = new ArrayList<>();
        for (Map.Entry<String, String> problem : scan(skills).entrySet()) {
            if (warned.add(problem.getKey() + "\n" + problem.getValue())) {
                log.warn("skills - {} skipped: {}", problem.getKey(), problem.getValue());
            }
        }
        return skills;
    }

    /** The invalid skills now: the file (or folder) and what is wrong with it. */
    public Map<String, String> problems() {
        return scan(new ArrayList<>());
    }

    /** The valid skill called {@code name}, read fresh when its file changed. */
    public Optional<Skill> find(String name) {
        if (SkillFile.badName(name) != null) {
            return Optional.empty();
        }
        Path dir = root.resolve(name);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        Cached c = load(name, dir);
        return Optional.ofNullable(c.skill());
    }

    /** Fills {@code into} with the valid skills, returns the problems (path to message), both in folder name order. */
    private Map<String, String> scan(List<Skill> into) {
        Map<String, String> problems = new LinkedHashMap<>();
        if (!Files.isDirectory(root)) {
            return problems;
        }
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                if (Files.isSymbolicLink(entry)) {
                    problems.put(entry.toString(), "it is a symbolic link; a skill must be a folder inside " + root);
                } else if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    dirs.add(entry);
                }
            }
        } catch (IOException e) {
            problems.put(root.toString(), "the skills folder cannot be read (" + e.getMessage() + ")");
            return problems;
        }
        dirs.sort(Comparator.comparing(p -> p.getFileName().toString()));
        int kept = 0;
        for (Path dir : dirs) {
            String name = dir.getFileName().toString();
            if (kept >= MAX_SKILLS) {
                problems.put(dir.resolve(FILE).toString(), "more than " + MAX_SKILLS + " skills; the rest are not read");
                continue;
            }
            Cached c = load(name, dir);
            if (c.skill() != null) {
                into.add(c.skill());
                kept++;
            } else {
                problems.put(dir.resolve(FILE).toString(), c.problem());
            }
        }
        return problems;
    }

    /** The skill of folder {@code dir}, parsed again only when its SKILL.md changed. */
    private Cached load(String name, Path dir) {
        Path file = dir.resolve(FILE);
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            cache.remove(name);
            return new Cached(0, 0, null, "the folder has no " + FILE);
        }
        long modified = a.lastModifiedTime().toMillis();
        Cached known = cache.get(name);
        if (known != null && known.modified() == modified && known.size() == a.size() && known.skill() != null
                && known.skill().dir().equals(dir)) {
            return known;
        }
        if (known != null && known.modified() == modified && known.size() == a.size() && known.skill() == null) {
            return known;
        }
        Cached fresh = parse(name, dir, file, a, modified);
        cache.put(name, fresh);
        return fresh;
    }

    private static Cached parse(String name, Path dir, Path file, BasicFileAttributes a, long modified) {
        if (a.isSymbolicLink()) {
            return new Cached(modified, a.size(), null, "it is a symbolic link; a SKILL.md must be a file in its folder");
        }
        if (!a.isRegularFile()) {
            return new Cached(modified, a.size(), null, "it is not a regular file");
        }
        if (a.size() > MAX_SKILL_BYTES) {
            return new Cached(modified, a.size(), null, "it has " + a.size() + " bytes; a SKILL.md may have at most " + MAX_SKILL_BYTES);
        }
        String bad = SkillFile.badName(name);
        if (bad != null) {
            return new Cached(modified, a.size(), null, "its folder name " + bad);
        }
        try {
            String text = decode(Files.readAllBytes(file));
            return new Cached(modified, a.size(), SkillFile.parse(name, dir, text), null);
        } catch (IOException e) {
            return new Cached(modified, a.size(), null, "it cannot be read (" + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
            return new Cached(modified, a.size(), null, e.getMessage());
        }
    }

    /** UTF-8, refusing bytes that are not (a binary file is no skill). */
    private static String decode(byte[] bytes) throws IOException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IOException("it is not UTF-8 text");
        }
    }

    /** The skill's other files, relative to its folder, sorted; symbolic links are not followed or listed. */
    public List<String> files(Skill skill) {
        try (Stream<Path> walk = Files.walk(skill.dir(), 4)) {
            return walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .map(p -> skill.dir().relativize(p).toString().replace('\\', '/'))
                    .filter(p -> !p.equals(FILE))
                    .sorted().limit(MAX_LISTED_FILES).toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return List.of();
        }
    }

    /**
     * The text of the file at {@code relative} inside the skill's folder.
     *
     * @throws IllegalArgumentException when the path leaves the folder, passes a symbolic link, is no regular file or is too large
     */
    public String read(Skill skill, String relative) throws IOException {
        Path file = inside(skill, relative);
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) {
            throw new IllegalArgumentException("'" + relative + "' is not a file of the skill " + skill.name());
        }
        if (a.size() > MAX_FILE_BYTES) {
            throw new IllegalArgumentException("'" + relative + "' has " + a.size() + " bytes; the skill tool reads at most " + MAX_FILE_BYTES);
        }
        return decode(Files.readAllBytes(file));
    }

    /** {@code relative} resolved inside the skill's folder; refused when it leaves it or any part of it is a symbolic link. */
    private static Path inside(Skill skill, String relative) throws IOException {
        if (relative == null || relative.isBlank() || relative.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("give the path of a file inside the skill's folder, e.g. reference.md");
        }
        Path given = Path.of(relative);
        Path file = skill.dir().resolve(given).normalize();
        if (given.isAbsolute() || !file.startsWith(skill.dir()) || file.equals(skill.dir())) {
            throw new IllegalArgumentException("'" + relative + "' is outside the skill's folder; only its own files can be read");
        }
        Path at = skill.dir();
        for (Path part : skill.dir().relativize(file)) {
            at = at.resolve(part);
            if (Files.isSymbolicLink(at)) {
                throw new IllegalArgumentException("'" + relative + "' passes a symbolic link; skills' files are read only without links");
            }
        }
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("the skill " + skill.name() + " has no file '" + relative + "'");
        }
        if (!file.toRealPath().startsWith(skill.dir().toRealPath())) {
            throw new IllegalArgumentException("'" + relative + "' is outside the skill's folder");
        }
        return file;
    }

    /**
     * Creates or replaces the skill {@code name}'s SKILL.md with {@code content}, validated as a file on disk is; the file
     * is written beside and moved into place, so a reader never sees half of it.
     *
     * @throws IllegalStateException    when skills are read-only
     * @throws IllegalArgumentException when the name or the content is not a valid skill
     */
    public Skill write(String name, String content) throws IOException {
        if (!writable) {
            throw new IllegalStateException("skills are read-only here (agent.skills_writable is off)");
        }
        String bad = SkillFile.badName(name);
        if (bad != null) {
            throw new IllegalArgumentException(bad);
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_SKILL_BYTES) {
            throw new IllegalArgumentException("the SKILL.md has " + bytes.length + " bytes; at most " + MAX_SKILL_BYTES);
        }
        Path dir = root.resolve(name);
        Skill skill = SkillFile.parse(name, dir, content);
        if (Files.isSymbolicLink(dir) || Files.isSymbolicLink(dir.resolve(FILE))) {
            throw new IllegalArgumentException("the skill's folder or file is a symbolic link; it is not written through");
        }
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, ".SKILL", ".tmp");
        try {
            Files.write(temp, bytes);
            Files.move(temp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        cache.remove(name);
        log.info("skills - the agent wrote the skill {} ({} bytes)", name, bytes.length);
        return skill;
    }
}
