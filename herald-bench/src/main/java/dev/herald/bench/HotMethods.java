package dev.herald.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A summary of a JFR recording's CPU samples ({@code jdk.ExecutionSample}, Java threads running Java code):
 * the methods on top of the stack most often (what {@code jfr view hot-methods} shows), and, for each sample,
 * the Herald method nearest the top, which says which part of Herald the time is spent under (a JSON encoder
 * called by the model client counts for the model client). Threads inside native code (SQLite's JNI calls and
 * their {@code fsync}, but also threads idling in {@code epoll}) are not in those samples; a third table shows which
 * threads the {@code jdk.NativeMethodSample}s found in which native method (JFR samples a bounded number of threads
 * per period, so these are shares, not busy fractions).
 */
final class HotMethods {
    private static final String HERALD = "dev.herald.";
    private static final int NATIVE_ROWS = 8;

    private final Map<String, Integer> top = new HashMap<>();
    private final Map<String, Integer> herald = new HashMap<>();
    private final Map<String, Integer> inNative = new HashMap<>();
    private int samples;
    private int nativeSamples;

    private HotMethods() {
    }

    static HotMethods read(Path jfr) throws IOException {
        HotMethods h = new HotMethods();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                String type = e.getEventType().getName();
                if (type.equals("jdk.NativeMethodSample")) {
                    h.addNative(e.getStackTrace(), e.getThread("sampledThread"));
                } else if (type.equals("jdk.ExecutionSample")) {
                    h.add(e.getStackTrace(), e.getThread("sampledThread"));
                }
            }
        }
        return h;
    }

    private void add(RecordedStackTrace stack, RecordedThread thread) {
        if (stack == null || stack.getFrames().isEmpty()) {
            return;
        }
        samples++;
        List<RecordedFrame> frames = stack.getFrames();
        top.merge(name(frames.get(0).getMethod()), 1, Integer::sum);
        String nearest = "(no Herald frame) " + threadName(thread) + " thread, in " + origin(frames);
        for (RecordedFrame f : frames) {
            String n = name(f.getMethod());
            if (n.startsWith(HERALD)) {
                nearest = n;
                break;
            }
        }
        herald.merge(nearest, 1, Integer::sum);
    }

    private void addNative(RecordedStackTrace stack, RecordedThread thread) {
        nativeSamples++;
        String top = stack == null || stack.getFrames().isEmpty() ? "?" : name(stack.getFrames().get(0).getMethod());
        inNative.merge(threadName(thread) + " thread in " + top, 1, Integer::sum);
    }

    int samples() {
        return samples;
    }

    void print(PrintStream out, int rows) {
        out.printf("%nsamples: %,d of Java code running (jdk.ExecutionSample), %,d of threads in native code (jdk.NativeMethodSample)%n",
                samples, nativeSamples);
        table(out, "top " + rows + " hot methods (top of stack)", top, rows);
        table(out, "top " + rows + " Herald methods nearest the top of each sample (where the time goes, inclusive of callees outside Herald)",
                herald, rows, samples);
        table(out, "threads in native code (shares of the native samples; waiting in epoll is idle, SQLite's step includes fsync)",
                inNative, NATIVE_ROWS, nativeSamples);
    }

    private void table(PrintStream out, String title, Map<String, Integer> counts, int rows) {
        table(out, title, counts, rows, samples);
    }

    private static void table(PrintStream out, String title, Map<String, Integer> counts, int rows, int total) {
        out.printf("%n%s%n", title);
        out.printf("  %7s  %6s  %s%n", "samples", "share", "method");
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())).limit(rows)
                .forEach(e -> out.printf("  %7d  %5.1f%%  %s%n", e.getValue(), 100.0 * e.getValue() / Math.max(1, total), e.getKey()));
    }

    /** The thread's name with numbers replaced by N ({@code qtp123-45} becomes {@code qtpN-N}); "virtual" for unnamed virtual threads. */
    private static String threadName(RecordedThread t) {
        if (t == null) {
            return "?";
        }
        String n = t.getJavaName() == null ? "" : t.getJavaName().replaceAll("\\d+", "N");
        n = n.indexOf(':') > 0 ? n.substring(0, n.indexOf(':')) : n; // turn-agent:<session key>: one name for all turns
        return n.isEmpty() ? (t.isVirtual() ? "virtual" : "unnamed") : n;
    }

    /** The package of the bottom-most frame outside the JDK (what started the thread's work), else of the bottom frame. */
    private static String origin(List<RecordedFrame> frames) {
        String fallback = "?";
        for (int i = frames.size() - 1; i >= 0; i--) {
            RecordedMethod m = frames.get(i).getMethod();
            if (m == null) {
                continue;
            }
            String type = m.getType().getName();
            String pkg = type.lastIndexOf('.') < 0 ? type : type.substring(0, type.lastIndexOf('.'));
            if (!(type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun."))) {
                return pkg;
            }
            if (fallback.equals("?")) {
                fallback = pkg;
            }
        }
        return fallback;
    }

    private static String name(RecordedMethod m) {
        if (m == null) {
            return "(unknown)";
        }
        return m.getType().getName() + "." + m.getName();
    }
}
