package dev.herald.testkit.fuzz;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A seeded fuzzer for the parsers of outside input: it mutates a corpus of realistic inputs (structure-aware
 * for JSON, byte-level for everything) and feeds each result to a target, failing on the first input that
 * breaks an invariant.
 *
 * <p>Invariants checked for every input: the target returns, or throws an exception the caller declares to be
 * the parser's own clear error ({@code allowed}); it never throws anything else (a {@code NullPointerException},
 * a {@code StackOverflowError}, an {@code OutOfMemoryError}); it never runs longer than the hang limit. The
 * target itself asserts what must hold after a rejected input (nothing stored, no event produced).
 *
 * <p>Runs are reproducible: the seed is printed and a failure names the seed, the input's index and the input
 * (escaped, cut to 2,000 characters). System properties: {@code fuzz.seed} (fix the seed), {@code fuzz.inputs}
 * (inputs per parser, overriding each test's bounded default; {@code bin/fuzz} uses 1,000,000),
 * {@code fuzz.wire.inputs} (the same for inputs sent over the wire to a running adapter), {@code fuzz.hang.ms}
 * (per-input limit, default 5,000). A test's default keeps it to seconds in CI.
 *
 * <p>Each input runs on one worker thread while the calling thread watches the clock, so a hang is reported
 * with its input instead of freezing the build.
 */
public final class Fuzzer {
    private final String name;
    private final long seed;
    private final int inputs;
    private final Duration hangLimit;
    private final Mutator mutator;

    private Fuzzer(String name, long seed, int inputs, Duration hangLimit, List<String> corpus) {
        this.name = name;
        this.seed = seed;
        this.inputs = inputs;
        this.hangLimit = hangLimit;
        this.mutator = new Mutator(corpus);
    }

    /**
     * A fuzzer named {@code name} over {@code corpus}, running {@code defaultInputs} inputs unless
     * {@code fuzz.inputs} says otherwise.
     */
    public static Fuzzer of(String name, List<String> corpus, int defaultInputs) {
        return build(name, corpus, defaultInputs, "fuzz.inputs");
    }

    /**
     * A fuzzer whose inputs go over the wire to a running adapter (slower per input): its count comes from
     * {@code fuzz.wire.inputs} instead of {@code fuzz.inputs}.
     */
    public static Fuzzer wire(String name, List<String> corpus, int defaultInputs) {
        return build(name, corpus, defaultInputs, "fuzz.wire.inputs");
    }

    private static Fuzzer build(String name, List<String> corpus, int defaultInputs, String countProperty) {
        if (corpus.isEmpty()) {
            throw new IllegalArgumentException("fuzz - " + name + " needs at least one corpus entry");
        }
        String fixed = System.getProperty("fuzz.seed");
        long seed = fixed == null || fixed.isBlank() ? System.nanoTime() : Long.parseLong(fixed.strip());
        String count = System.getProperty(countProperty);
        int inputs = count == null || count.isBlank() ? defaultInputs : Integer.parseInt(count.strip());
        String hang = System.getProperty("fuzz.hang.ms");
        Duration limit = Duration.ofMillis(hang == null || hang.isBlank() ? 5_000 : Long.parseLong(hang.strip()));
        return new Fuzzer(name, seed, inputs, limit, corpus);
    }

    public long seed() {
        return seed;
    }

    public int inputs() {
        return inputs;
    }

    /** What one run did. */
    public record Report(String name, long seed, int inputs, int rejected, Duration took, Duration slowest, String slowestInput) {
        @Override
        public String toString() {
            return "fuzz - " + name + ": " + inputs + " inputs (" + rejected + " rejected with the parser's own error) in "
                    + took.toMillis() + " ms, seed " + seed + "; slowest input " + slowest.toMillis() + " ms ("
                    + slowestInput.length() + " chars: " + show(slowestInput.length() > 120 ? slowestInput.substring(0, 120) : slowestInput) + ")";
        }
    }

    /** The code under test: parse {@code input} and check what must hold afterwards. */
    @FunctionalInterface
    public interface Target {
        void accept(String input) throws Exception;
    }

    /**
     * Feeds {@link #inputs()} mutated inputs to {@code target}; {@code allowed} tells the parser's own errors
     * from bugs. Throws {@link AssertionError} naming the seed and the input on the first broken invariant.
     */
    public Report run(Target target, Predicate<Throwable> allowed) {
        Objects.requireNonNull(target, "target");
        System.out.println("fuzz - " + name + ": seed " + seed + " (-Dfuzz.seed=" + seed + " replays it), " + inputs + " inputs");
        SplittableRandom random = new SplittableRandom(seed);
        AtomicReference<String> current = new AtomicReference<>();
        AtomicLong startedAt = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Integer> failedAt = new AtomicReference<>();
        int[] rejected = {0};
        int[] done = {0};
        long[] slowest = {0};
        String[] slowestInput = {""};
        long t0 = System.nanoTime();
        Thread worker = Thread.ofPlatform().name("fuzz-" + name).daemon().start(() -> {
            for (int i = 0; i < inputs; i++) {
                String input;
                try {
                    input = mutator.next(random);
                } catch (RuntimeException e) {
                    failure.set(new IllegalStateException("the fuzzer's own mutator failed", e));
                    failedAt.set(i);
                    current.set("(no input)");
                    return;
                }
                current.set(input);
                startedAt.set(System.nanoTime());
                try {
                    target.accept(input);
                } catch (Throwable t) {
                    if (t instanceof AssertionError || !allowed.test(t)) {
                        failure.set(t);
                        failedAt.set(i);
                        return;
                    }
                    rejected[0]++;
                }
                long took = System.nanoTime() - startedAt.get();
                if (took > slowest[0]) {
                    slowest[0] = took;
                    slowestInput[0] = input;
                }
                startedAt.set(0);
                done[0]++;
            }
        });
        try {
            while (worker.isAlive()) {
                worker.join(50);
                long began = startedAt.get();
                if (began != 0 && System.nanoTime() - began > hangLimit.toNanos() && worker.isAlive()) {
                    String input = current.get();
                    worker.interrupt();
                    throw new AssertionError("fuzz - " + name + ": one input ran longer than " + hangLimit.toMillis() + " ms (seed "
                            + seed + "); input (" + input.length() + " chars): " + show(input));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("fuzz - " + name + " interrupted", e);
        }
        Throwable t = failure.get();
        if (t != null) {
            String input = current.get();
            throw new AssertionError("fuzz - " + name + ": input " + failedAt.get() + " broke an invariant (seed " + seed + ", replay with -Dfuzz.seed="
                    + seed + "): " + t + "\ninput (" + input.length() + " chars): " + show(input), t);
        }
        if (done[0] != inputs) {
            throw new AssertionError("fuzz - " + name + ": only " + done[0] + " of " + inputs + " inputs ran (seed " + seed + ")");
        }
        Report report = new Report(name, seed, inputs, rejected[0], Duration.ofNanos(System.nanoTime() - t0),
                Duration.ofNanos(slowest[0]), slowestInput[0]);
        System.out.println(report);
        return report;
    }

    /** The input escaped so that control characters and long runs survive a log: at most 2,000 characters. */
    static String show(String input) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < input.length() && out.length() < 2_000; i++) {
            char c = input.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return input.length() > 2_000 ? out + "…" : out.toString();
    }
}
