package dev.herald.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** {@code --name value} command-line options and small file helpers for the benchmark mains. */
final class Args {
    private Args() {
    }

    static Map<String, String> parse(String[] args) {
        return parse(args, Set.of());
    }

    /** Like {@link #parse(String[])}, where the names in {@code flags} take no value and map to {@code "true"}. */
    static Map<String, String> parse(String[] args, Set<String> flags) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && flags.contains(args[i].substring(2))) {
                out.put(args[i].substring(2), "true");
                continue;
            }
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }

    static List<Integer> sizes(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            out.add(Integer.parseInt(s.strip().replace("_", "")));
        }
        return out;
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
