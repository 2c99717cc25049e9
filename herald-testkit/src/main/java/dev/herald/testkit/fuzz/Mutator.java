package dev.herald.testkit.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Makes the fuzzer's inputs from a corpus. Most inputs keep the corpus entry's shape: a JSON entry is parsed
 * and one to four of its values are replaced, removed, duplicated, re-typed or nested deeply, with keys and
 * strings taken from the whole corpus and from a list of values known to trip parsers (empty, huge, negative,
 * control and surrogate characters, command-like text). The rest are byte-level: flips, insertions, deletions,
 * duplicated runs, truncation and splices of two entries, which reach the syntax errors.
 */
final class Mutator {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int MAX_LENGTH = 256 * 1024;
    private static final String[] TOKENS = {"{", "}", "[", "]", "\"", ":", ",", "\\", "\\u0000", "\\ud800", "null", "true", "-", "0", "1e999",
        "\n", "\r\n", "\t", "#", "&", "<", ">", "<<", "${", "${X}", "%", "/", "..", "\u0000", "\ud83d\ude00", "\u202e", "\uffff", "'", "`"};
    private static final String[] STRINGS = {"", " ", "/", "/stop", "/new", "/status extra", "/approve always", "/cmd@otherbot x", "!stop",
        "@", "<@100000000000000001>", "<@U000>", "..", "../../etc/passwd", "a..b", "%00", "\u0000", "\ud800", "\udfff\ud800",
        "\ud83d\ude00", "\u202e\u0041", "null", "true", "-1", "0", "9223372036854775808", "-9223372036854775809", "1e308", "NaN",
        "${HOME}", "${X:-y}", "$${", "http://127.0.0.1:1/", "javascript:alert(1)", "<script>", "&amp;&lt;", "\r\n\r\n", "\t"};

    private final List<String> corpus;
    private final List<JsonNode> trees = new ArrayList<>();
    private final List<String> keys;
    private final List<String> texts;

    Mutator(List<String> corpus) {
        this.corpus = List.copyOf(corpus);
        Set<String> k = new LinkedHashSet<>();
        Set<String> t = new LinkedHashSet<>(List.of(STRINGS));
        for (String entry : corpus) {
            try {
                JsonNode tree = JSON.readTree(entry);
                if (tree != null && tree.isContainerNode()) {
                    trees.add(tree);
                    harvest(tree, k, t);
                }
            } catch (Exception notJson) {
                // a non-JSON entry (YAML, a header value) is mutated byte-wise only
            }
        }
        this.keys = new ArrayList<>(k.isEmpty() ? Set.of("id", "type", "text") : k);
        this.texts = new ArrayList<>(t);
    }

    String next(SplittableRandom random) {
        String out;
        if (!trees.isEmpty() && random.nextInt(10) < 7) {
            JsonNode tree = trees.get(random.nextInt(trees.size())).deepCopy();
            int rounds = 1 + random.nextInt(4);
            for (int i = 0; i < rounds; i++) {
                tree = mutateTree(tree, random);
            }
            out = tree.toString();
            if (random.nextInt(8) == 0) {
                out = mutateText(out, random);
            }
        } else {
            out = corpus.get(random.nextInt(corpus.size()));
            int rounds = 1 + random.nextInt(4);
            for (int i = 0; i < rounds; i++) {
                out = mutateText(out, random);
            }
        }
        return out.length() > MAX_LENGTH ? out.substring(0, MAX_LENGTH) : out;
    }

    // ---- structure-aware -------------------------------------------------------------------------

    private JsonNode mutateTree(JsonNode root, SplittableRandom random) {
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers);
        if (containers.isEmpty()) {
            return value(random, 0);
        }
        JsonNode target = containers.get(random.nextInt(containers.size()));
        if (target instanceof ObjectNode o) {
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            int op = random.nextInt(6);
            if (names.isEmpty() || op == 0) {
                o.set(pick(keys, random), value(random, 0));
            } else {
                String name = names.get(random.nextInt(names.size()));
                switch (op) {
                    case 1 -> o.remove(name);
                    case 2 -> o.set(name, nest(o.get(name), random));
                    case 3 -> o.set(name, retype(o.get(name), random));
                    default -> o.set(name, value(random, 0));
                }
            }
        } else if (target instanceof ArrayNode a) {
            int op = random.nextInt(4);
            if (a.isEmpty() || op == 0) {
                a.add(value(random, 0));
            } else if (op == 1) {
                a.remove(random.nextInt(a.size()));
            } else if (op == 2) {
                JsonNode copy = a.get(random.nextInt(a.size())).deepCopy();
                int times = 1 + random.nextInt(random.nextInt(10) == 0 ? 200 : 3);
                for (int i = 0; i < times; i++) {
                    a.add(copy.deepCopy());
                }
            } else {
                a.set(random.nextInt(a.size()), value(random, 0));
            }
        }
        if (random.nextInt(40) == 0) {
            return value(random, 0);
        }
        return root;
    }

    private JsonNode value(SplittableRandom random, int depth) {
        return switch (random.nextInt(depth > 2 ? 7 : 9)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.booleanNode(random.nextBoolean());
            case 2 -> NODES.numberNode(interestingLong(random));
            case 3 -> NODES.numberNode(random.nextInt(4) == 0 ? Double.MAX_VALUE : random.nextDouble() * 1e6 - 5e5);
            case 4, 5 -> NODES.textNode(text(random));
            case 6 -> NODES.textNode(pick(keys, random));
            case 7 -> {
                ObjectNode o = NODES.objectNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    o.set(pick(keys, random), value(random, depth + 1));
                }
                yield o;
            }
            default -> {
                ArrayNode a = NODES.arrayNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(value(random, depth + 1));
                }
                yield a;
            }
        };
    }

    private JsonNode nest(JsonNode inner, SplittableRandom random) {
        int depth = random.nextInt(10) == 0 ? 100 + random.nextInt(200) : 1 + random.nextInt(20);
        JsonNode node = inner;
        for (int i = 0; i < depth; i++) {
            node = random.nextBoolean() ? NODES.arrayNode().add(node) : NODES.objectNode().set(pick(keys, random), node);
        }
        return node;
    }

    private JsonNode retype(JsonNode node, SplittableRandom random) {
        if (node == null) {
            return NODES.nullNode();
        }
        if (node.isTextual()) {
            String s = node.asText();
            return switch (random.nextInt(3)) {
                case 0 -> NODES.numberNode(s.length());
                case 1 -> NODES.arrayNode().add(s);
                default -> NODES.objectNode().put(pick(keys, random), s);
            };
        }
        if (node.isNumber()) {
            return random.nextBoolean() ? NODES.textNode(node.asText()) : NODES.numberNode(-node.asLong() - 1);
        }
        return random.nextBoolean() ? NODES.textNode(node.toString()) : NODES.nullNode();
    }

    private String text(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> pick(texts, random);
            case 1 -> pick(texts, random) + pick(texts, random);
            case 2 -> randomChars(random, 1 + random.nextInt(40));
            case 3 -> repeat(pick(texts, random).isEmpty() ? "x" : pick(texts, random), random.nextInt(10) == 0 ? 20_000 : 1 + random.nextInt(200));
            case 4 -> pick(STRINGS, random) + " " + pick(texts, random);
            default -> pick(texts, random);
        };
    }

    private static long interestingLong(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> Long.MAX_VALUE;
            case 3 -> Long.MIN_VALUE;
            case 4 -> Integer.MAX_VALUE + 1L;
            default -> random.nextLong();
        };
    }

    // ---- byte-level (on the text; UTF-16 units, so half surrogates happen too) ---------------------

    private String mutateText(String s, SplittableRandom random) {
        StringBuilder b = new StringBuilder(s);
        int at = b.isEmpty() ? 0 : random.nextInt(b.length() + 1);
        switch (random.nextInt(9)) {
            case 0 -> {
                if (!b.isEmpty()) {
                    int i = Math.min(at, b.length() - 1);
                    b.setCharAt(i, (char) (b.charAt(i) ^ (1 << random.nextInt(8))));
                }
            }
            case 1 -> b.insert(at, pick(TOKENS, random));
            case 2 -> {
                int end = Math.min(b.length(), at + 1 + random.nextInt(32));
                b.delete(at, end);
            }
            case 3 -> {
                int end = Math.min(b.length(), at + 1 + random.nextInt(64));
                String run = b.substring(at, end);
                b.insert(at, repeat(run, 1 + random.nextInt(random.nextInt(20) == 0 ? 2_000 : 8)));
            }
            case 4 -> b.setLength(at);
            case 5 -> {
                String other = corpus.get(random.nextInt(corpus.size()));
                int from = other.isEmpty() ? 0 : random.nextInt(other.length());
                b.insert(at, other.substring(from));
            }
            case 6 -> b.insert(at, randomChars(random, 1 + random.nextInt(8)));
            case 7 -> {
                int depth = 500 + random.nextInt(5_000);
                b.insert(0, "[".repeat(depth)).append("]".repeat(random.nextBoolean() ? depth : depth / 2));
            }
            default -> b.insert(at, pick(STRINGS, random));
        }
        return b.toString();
    }

    private static String randomChars(SplittableRandom random, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(10);
            b.append(kind < 5 ? (char) (0x20 + random.nextInt(0x5f)) : kind < 7 ? (char) random.nextInt(0x20)
                    : kind < 9 ? (char) random.nextInt(0x10000) : (char) (0xd800 + random.nextInt(0x800)));
        }
        return b.toString();
    }

    private static String repeat(String s, int times) {
        long total = (long) s.length() * times;
        return total > MAX_LENGTH ? s.repeat(Math.max(1, MAX_LENGTH / Math.max(1, s.length()))) : s.repeat(times);
    }

    private static void collect(JsonNode node, List<JsonNode> out) {
        if (node.isContainerNode()) {
            out.add(node);
            for (JsonNode child : node) {
                collect(child, out);
            }
        }
    }

    private static void harvest(JsonNode node, Set<String> keys, Set<String> texts) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                keys.add(e.getKey());
                harvest(e.getValue(), keys, texts);
            }
        } else if (node.isArray()) {
            node.forEach(child -> harvest(child, keys, texts));
        } else if (node.isTextual() && node.asText().length() <= 200) {
            texts.add(node.asText());
        }
    }

    private static <T> T pick(List<T> list, SplittableRandom random) {
        return list.get(random.nextInt(list.size()));
    }

    private static String pick(String[] list, SplittableRandom random) {
        return list[random.nextInt(list.length)];
    }
}
