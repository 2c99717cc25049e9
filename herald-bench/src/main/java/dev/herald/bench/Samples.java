package dev.herald.bench;

import java.util.Arrays;

/** A fixed set of nanosecond figures with nearest-rank percentiles, printed in milliseconds. */
final class Samples {
    private final long[] sorted;

    Samples(long[] values) {
        this.sorted = values.clone();
        Arrays.sort(sorted);
    }

    int count() {
        return sorted.length;
    }

    boolean isEmpty() {
        return sorted.length == 0;
    }

    /** The nearest-rank percentile {@code p} (0..100) in nanoseconds; 0 when empty. */
    long percentile(double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    long max() {
        return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
    }

    double mean() {
        return sorted.length == 0 ? 0 : Arrays.stream(sorted).average().orElse(0);
    }

    /** Milliseconds with two decimals, or "-" when there is nothing to show. */
    static String ms(long nanos, boolean present) {
        return present ? String.format("%.2f", nanos / 1e6) : "-";
    }

    String p50() {
        return ms(percentile(50), !isEmpty());
    }

    String p99() {
        return ms(percentile(99), !isEmpty());
    }

    String maxMs() {
        return ms(max(), !isEmpty());
    }
}
