package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link OldGenTrim} in a JVM of its own on the serial collector, with a young generation small enough that entries of
 * a churning cache are promoted and die in the old generation, as a busy gateway's are: without the trim the old
 * generation grows with garbage toward the ceiling; with it the old generation stays near its floor.
 */
class OldGenTrimTest {
    private static final Pattern RESULT = Pattern.compile("maxOldMb=(\\d+) trims=(\\d+) thresholdMb=(\\d+)");

    @Test
    void withTheTrim_theOldGenerationStaysNearItsFloor_withoutIt_itFillsWithGarbage() throws Exception {
        Matcher with = churn(true);
        Matcher without = churn(false);

        assertThat(Long.parseLong(without.group(1))).as("old generation without the trim (MB)").isGreaterThan(150);
        assertThat(Long.parseLong(with.group(1))).as("old generation with the trim (MB)").isLessThan(80);
        assertThat(Integer.parseInt(with.group(2))).as("full collections asked for").isGreaterThanOrEqualTo(2);
        assertThat(Long.parseLong(with.group(3))).as("next threshold (MB): the 16 MB floor or twice what was alive")
                .isBetween(16L, 60L);
    }

    @Test
    void anotherCollector_orTheFloorSetToZero_installsNothing() {
        // this JVM runs the test framework's collector (G1 by default), not the serial one
        boolean serial = ManagementFactory.getMemoryPoolMXBeans().stream().map(MemoryPoolMXBean::getName).anyMatch("Tenured Gen"::equals);
        assertThat(OldGenTrim.install(16L << 20, 100).isPresent()).isEqualTo(serial);
        String was = System.setProperty("herald.heap.trim_mib", "0");
        try {
            assertThat(OldGenTrim.install()).isEmpty();
        } finally {
            if (was == null) {
                System.clearProperty("herald.heap.trim_mib");
            } else {
                System.setProperty("herald.heap.trim_mib", was);
            }
        }
    }

    private static Matcher churn(boolean trim) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC", "-Xms16m", "-Xmn6m", "-Xmx768m",
                "-cp", System.getProperty("java.class.path"), Churn.class.getName(), String.valueOf(trim))
                .redirectErrorStream(true).start();
        String out;
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the churning JVM did not finish in 60 s");
            }
        } finally {
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.destroyForcibly();
        }
        Matcher m = RESULT.matcher(out);
        assertThat(m.find()).as("the churning JVM's output: %s", out).isTrue();
        return m;
    }

    /** A cache of 8,000 one-KiB entries replaced at random, a hundred a millisecond, for 6 s (or until the old generation passes 200 MB). */
    public static final class Churn {
        public static void main(String[] args) throws Exception {
            OldGenTrim trim = Boolean.parseBoolean(args[0]) ? OldGenTrim.install(16L << 20, 200).orElseThrow() : null;
            MemoryPoolMXBean old = ManagementFactory.getMemoryPoolMXBeans().stream()
                    .filter(p -> p.getName().equals("Tenured Gen")).findFirst().orElseThrow();
            List<byte[]> cache = new ArrayList<>();
            for (int i = 0; i < 8_000; i++) {
                cache.add(new byte[1024]);
            }
            long maxOld = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() < end && maxOld < (200L << 20)) {
                for (int i = 0; i < 100; i++) {
                    cache.set(random.nextInt(cache.size()), new byte[1024]);
                }
                maxOld = Math.max(maxOld, old.getUsage().getUsed());
                Thread.sleep(1);
            }
            System.out.println("maxOldMb=" + (maxOld >> 20) + " trims=" + (trim == null ? 0 : trim.trims())
                    + " thresholdMb=" + (trim == null ? 0 : trim.threshold() >> 20));
        }
    }
}
