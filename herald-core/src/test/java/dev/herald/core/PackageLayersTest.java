package dev.herald.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The gateway's packages are layers, each one story (docs/architecture.md): what a turn needs to know after a crash
 * ({@code continuity}), what the gateway reports ({@code metrics}), how replies go out ({@code outbox}), the lanes and the
 * turn runner ({@code lanes}), recovery's workers ({@code recovery}), admission and chat commands ({@code inbound}), and the
 * facade with its lifecycle ({@code gateway}). A package uses only those before it, so there is no cycle among them, and
 * no package below them (the store's records, the agent's contract, platforms) uses any of them.
 */
class PackageLayersTest {
    static final List<String> LAYERS = List.of("continuity", "metrics", "outbox", "lanes", "recovery", "inbound", "gateway");
    /** Extensions that sit on the gateway (the scheduler adds a chat command and stored turn options). */
    static final List<String> ABOVE = List.of("schedule",
            "side"); // /steer, /btw, /bg, /busy: chat commands beside the running turn
    static final int MAX_FILES = 12;
    static final Pattern REFERENCE = Pattern.compile("dev\\.herald\\.core\\.([a-z]\\w*)\\.[A-Z]");
    static final Path SOURCES = Path.of("src/main/java/dev/herald/core");

    @Test
    void gatewayPackages_useOnlyTheLayersBeforeThem_andNothingBelowUsesThem() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : references().entrySet()) {
            String file = e.getKey();
            String pkg = file.contains("/") ? file.substring(0, file.indexOf('/')) : "";
            int own = LAYERS.indexOf(pkg);
            for (String used : e.getValue()) {
                int layer = LAYERS.indexOf(used);
                if (layer < 0 || used.equals(pkg)) {
                    continue;
                }
                if (own >= 0 && layer > own) {
                    wrong.add(file + " uses " + used + ", a layer after " + pkg);
                } else if (own < 0 && !ABOVE.contains(pkg)) {
                    wrong.add(file + " uses " + used + ", but " + (pkg.isEmpty() ? "the core's root" : pkg) + " is below the gateway's layers");
                }
            }
        }
        assertThat(wrong).as("references against the layers " + LAYERS).isEmpty();
    }

    @Test
    void gatewayPackages_holdAboutTenFilesEach() {
        for (String layer : LAYERS) {
            try (Stream<Path> files = Files.list(SOURCES.resolve(layer))) {
                assertThat(files.filter(f -> f.toString().endsWith(".java")).count()).as(layer).isBetween(1L, (long) MAX_FILES);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** For each main source file (path under dev/herald/core), the core packages its code names (comments left out). */
    private static Map<String, List<String>> references() {
        Map<String, List<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String code = Files.readString(f).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
                List<String> used = new ArrayList<>();
                Matcher m = REFERENCE.matcher(code);
                while (m.find()) {
                    used.add(m.group(1));
                }
                out.put(SOURCES.relativize(f).toString().replace('\\', '/'), used);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
