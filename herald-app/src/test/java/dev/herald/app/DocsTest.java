package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs stay true to the code. {@code docs/architecture.md} names only packages and classes that exist and lists every
 * package the modules ship; the relative links of {@code README.md} and {@code docs/} lead to files, and to headings,
 * that exist.
 *
 * <p>What counts as a name in the map: an inline code span (in backticks, outside fenced blocks) that is a
 * {@code dev.herald...} package or class, or a class name ({@code TurnRunner}, a capital letter and at least one lower-case
 * one), optionally followed by nested names or fields ({@code SessionLanes.Submission}, {@code Admission.DUPLICATE}) and a
 * member ({@code Turns#start}, a method or a test). A class must be declared in some module's {@code src/main/java} or
 * {@code src/test/java}; each name after it must appear as a word in a file that declares it. Other code spans (config
 * keys, commands, SQL, constants) are left alone, which is why the map writes JDK classes without backticks.
 */
class DocsTest {
    private static final Path ROOT = repositoryRoot();
    private static final Pattern FENCE = Pattern.compile("(?m)^\\s*```.*?^\\s*```[^\\n]*$", Pattern.DOTALL);
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern PACKAGE_OR_CLASS = Pattern.compile("dev\\.herald(?:\\.[a-z][a-z0-9]*)*(?:\\.([A-Z]\\w*))?");
    private static final Pattern CLASS_REF = Pattern.compile("([A-Z][A-Za-z0-9_]*)((?:\\.[A-Za-z_][A-Za-z0-9_]*)*)(?:#([A-Za-z_][A-Za-z0-9_]*))?");
    private static final Pattern DECLARATION = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z][A-Za-z0-9_]*)");
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern HTML_SOURCE = Pattern.compile("<(?:img|a)\\b[^>]*?\\b(?:src|href)=\"([^\"]+)\"");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    @Test
    void architectureMap_namesOnlyPackagesAndClassesThatExist() throws IOException {
        Sources sources = Sources.scan(ROOT);
        List<String> problems = new ArrayList<>();
        for (String name : codeNames(read(ROOT.resolve("docs/architecture.md")))) {
            Matcher fq = PACKAGE_OR_CLASS.matcher(name);
            Matcher ref = CLASS_REF.matcher(name);
            if (fq.matches()) {
                String type = fq.group(1);
                String pkg = type == null ? name : name.substring(0, name.length() - type.length() - 1);
                if (!sources.packages.contains(pkg)) {
                    problems.add("`" + name + "`: no module has the package " + pkg);
                } else if (type != null && sources.declaring(type).stream().noneMatch(f -> sources.packageOf(f).equals(pkg))) {
                    problems.add("`" + name + "`: package " + pkg + " declares no type " + type);
                }
            } else if (ref.matches() && ref.group(1).chars().anyMatch(Character::isLowerCase)) {
                String type = ref.group(1);
                List<Path> files = sources.declaring(type);
                if (files.isEmpty()) {
                    problems.add("`" + name + "`: no source file declares " + type);
                    continue;
                }
                List<String> members = new ArrayList<>(List.of(ref.group(2).split("\\.")));
                members.removeIf(String::isEmpty);
                if (ref.group(3) != null) {
                    members.add(ref.group(3));
                }
                for (String member : members) {
                    Pattern word = Pattern.compile("\\b" + Pattern.quote(member) + "\\b");
                    if (files.stream().noneMatch(f -> word.matcher(sources.text(f)).find())) {
                        problems.add("`" + name + "`: " + type + " (" + ROOT.relativize(files.get(0)) + ") has no " + member);
                    }
                }
            }
        }

        assertThat(problems).as("docs/architecture.md names what the code no longer has; make the map follow the code").isEmpty();
    }

    @Test
    void architectureMap_listsEveryShippedPackage() throws IOException {
        Sources sources = Sources.scan(ROOT);
        Set<String> named = new TreeSet<>(codeNames(read(ROOT.resolve("docs/architecture.md"))));
        List<String> missing = sources.mainPackages.entrySet().stream()
                .filter(e -> !named.contains(e.getKey()))
                .map(e -> e.getKey() + " (" + e.getValue() + ")")
                .toList();

        assertThat(missing).as("docs/architecture.md's package tables miss these packages; add a row saying what each holds").isEmpty();
    }

    @Test
    void relativeLinks_inReadmeAndDocs_leadToFilesAndHeadingsThatExist() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> problems = new ArrayList<>();
        for (Path page : pages) {
            for (String target : relativeLinks(read(page))) {
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String fragment = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = ROOT.relativize(page) + " links to " + target;
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    problems.add(where + ": no such file");
                } else if (fragment != null && resolved.toString().endsWith(".md") && !anchors(read(resolved)).contains(fragment)) {
                    problems.add(where + ": " + ROOT.relativize(resolved) + " has no heading with that anchor");
                }
            }
        }

        assertThat(pages).hasSizeGreaterThan(5);
        assertThat(problems).as("broken relative links (a file or a heading moved?)").isEmpty();
    }

    /** The code spans of a page outside its fenced blocks, in order, each once. */
    static Set<String> codeNames(String markdown) {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = CODE_SPAN.matcher(FENCE.matcher(markdown).replaceAll(""));
        while (m.find()) {
            names.add(m.group(1).strip());
        }
        return names;
    }

    /** The link targets of a page that are neither absolute URLs nor inside code. */
    static List<String> relativeLinks(String markdown) {
        String text = CODE_SPAN.matcher(FENCE.matcher(markdown).replaceAll("")).replaceAll("");
        List<String> targets = new ArrayList<>();
        for (Pattern p : List.of(LINK, HTML_SOURCE)) {
            Matcher m = p.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (!target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    targets.add(target);
                }
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a page's headings (duplicates numbered -1, -2, ...) plus its explicit HTML anchors. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        Matcher m = HEADING.matcher(FENCE.matcher(markdown).replaceAll(""));
        while (m.find()) {
            String slug = slug(m.group(1));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        Matcher a = HTML_ANCHOR.matcher(markdown);
        while (a.find()) {
            anchors.add(a.group(1));
        }
        return anchors;
    }

    /** GitHub's heading anchor: the heading's text, lower case, without punctuation, spaces as hyphens. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
    }

    @Test
    void slug_followsGithub() {
        assertThat(slug("Weixin (personal WeChat, iLink bot API)")).isEqualTo("weixin-personal-wechat-ilink-bot-api");
        assertThat(slug("Several nodes (`bin/bench-cluster`, issue 11)")).isEqualTo("several-nodes-binbench-cluster-issue-11");
        assertThat(slug("A job's model and tools")).isEqualTo("a-jobs-model-and-tools");
        assertThat(slug("`turns_by_state` over unfinished turns only")).isEqualTo("turns_by_state-over-unfinished-turns-only");
        assertThat(anchors("# A\n## Notes\n```\n# not a heading\n```\n## Notes\n")).containsExactly("a", "notes", "notes-1");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Java sources of every module: their packages, and which files declare which type names. */
    private record Sources(Set<String> packages, Map<String, String> mainPackages, Map<String, List<Path>> declarations,
            Map<Path, String> texts) {
        static Sources scan(Path root) throws IOException {
            Set<String> packages = new TreeSet<>();
            Map<String, String> mainPackages = new TreeMap<>();
            Map<String, List<Path>> declarations = new HashMap<>();
            Map<Path, String> texts = new HashMap<>();
            List<Path> modules;
            try (Stream<Path> s = Files.list(root)) {
                modules = s.filter(p -> Files.isDirectory(p.resolve("src"))).sorted().toList();
            }
            for (Path module : modules) {
                for (String kind : List.of("main", "test")) {
                    Path base = module.resolve("src").resolve(kind).resolve("java");
                    if (!Files.isDirectory(base)) {
                        continue;
                    }
                    List<Path> files;
                    try (Stream<Path> s = Files.walk(base)) {
                        files = s.filter(p -> p.toString().endsWith(".java")).toList();
                    }
                    for (Path file : files) {
                        String pkg = base.relativize(file.getParent()).toString().replace(file.getFileSystem().getSeparator(), ".");
                        packages.add(pkg);
                        if (kind.equals("main")) {
                            mainPackages.put(pkg, module.getFileName().toString());
                        }
                        String text = read(file);
                        texts.put(file, text);
                        String own = file.getFileName().toString().replaceFirst("\\.java$", "");
                        declarations.computeIfAbsent(own, k -> new ArrayList<>()).add(file);
                        Matcher d = DECLARATION.matcher(text);
                        while (d.find()) {
                            List<Path> where = declarations.computeIfAbsent(d.group(1), k -> new ArrayList<>());
                            if (!where.contains(file)) {
                                where.add(file);
                            }
                        }
                    }
                }
            }
            return new Sources(packages, mainPackages, declarations, texts);
        }

        List<Path> declaring(String type) {
            return declarations.getOrDefault(type, List.of());
        }

        String text(Path file) {
            return texts.get(file);
        }

        String packageOf(Path file) {
            Matcher m = Pattern.compile("(?m)^package\\s+([\\w.]+);").matcher(texts.get(file));
            return m.find() ? m.group(1) : "";
        }
    }

    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("herald-app")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the repository root above " + Path.of("").toAbsolutePath());
    }
}
