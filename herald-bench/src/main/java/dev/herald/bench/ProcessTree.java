package dev.herald.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time and resident memory of a process and all its descendants, read from Linux's {@code /proc}.
 * CPU is {@code utime + stime} of every live process in the tree plus {@code cutime + cstime} (children that
 * already ended and were waited for), in clock ticks converted to milliseconds; memory is the sum of each
 * process's {@code VmRSS}. Shared pages (the JDK's libraries, the class-data archive) count once per process,
 * as {@code ps} and {@code top} count them.
 */
final class ProcessTree {
    /** One process of the tree: its pid, short command name and resident set in kB. */
    record Member(long pid, String name, long rssKb) {
    }

    /** One thread's kernel name and CPU milliseconds so far. */
    record ThreadCpu(String name, long cpuMillis) {
    }

    /** A reading of the whole tree. */
    record Reading(long cpuMillis, long rssKb, List<Member> members) {
        double rssMb() {
            return rssKb / 1024.0;
        }
    }

    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private final ProcessHandle root;

    ProcessTree(ProcessHandle root) {
        this.root = root;
    }

    /** True on Linux, where {@code /proc/self/stat} exists. */
    static boolean supported() {
        return Files.isReadable(Path.of("/proc/self/stat"));
    }

    Reading read() {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(root);
        root.descendants().forEach(all::add);
        long ticks = 0;
        long rss = 0;
        List<Member> members = new ArrayList<>();
        for (ProcessHandle p : all) {
            long t = cpuTicks(p.pid());
            if (t < 0) {
                continue;
            }
            ticks += t;
            long kb = rssKb(p.pid());
            rss += kb;
            members.add(new Member(p.pid(), p.info().command().map(c -> Path.of(c).getFileName().toString()).orElse("?"), kb));
        }
        return new Reading(ticks * 1000 / TICKS_PER_SECOND, rss, members);
    }

    /** The whole machine's CPU time since boot, from the first line of {@code /proc/stat}: busy (without steal), stolen by the host, all. */
    record MachineCpu(long busyMillis, long stealMillis, long totalMillis) {
    }

    static MachineCpu machine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).strip().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6]) + Long.parseLong(f[7]);
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
            long total = busy + steal + Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new MachineCpu(busy * 1000 / TICKS_PER_SECOND, steal * 1000 / TICKS_PER_SECOND, total * 1000 / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return new MachineCpu(0, 0, 0);
        }
    }

    /**
     * CPU milliseconds (utime + stime) of each live thread of process {@code pid}, by thread id, with its kernel name
     * ({@code comm}: the JVM's thread name cut to 15 characters, e.g. {@code GC Thread#0}, {@code C2 CompilerThre}).
     */
    static Map<Long, ThreadCpu> threads(long pid) {
        Map<Long, ThreadCpu> out = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                try {
                    String line = Files.readString(task.resolve("stat"));
                    String name = line.substring(line.indexOf('(') + 1, line.lastIndexOf(')'));
                    String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    long tid = Long.parseLong(task.getFileName().toString());
                    out.put(tid, new ThreadCpu(name, ticks * 1000 / TICKS_PER_SECOND));
                } catch (IOException | RuntimeException threadEnded) {
                    // the thread ended while listing
                }
            }
        } catch (IOException | RuntimeException processEnded) {
            // no such process
        }
        return out;
    }

    /** CPU milliseconds this JVM (the driver and the instant model) has used. */
    static long selfCpuMillis() {
        return Math.max(0, cpuTicks(ProcessHandle.current().pid())) * 1000 / TICKS_PER_SECOND;
    }

    /** {@code utime + stime + cutime + cstime} of one process in clock ticks, or -1 when it is gone. */
    private static long cpuTicks(long pid) {
        try {
            String line = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // the command name (field 2) may hold spaces and parentheses: fields are counted after its closing ')'
            String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
            // f[0] is field 3 (state); utime, stime, cutime, cstime are fields 14..17
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException gone) {
            return -1;
        }
    }

    private static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).strip().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException gone) {
            // the process ended between listing and reading: it holds no memory
        }
        return 0;
    }

    private static long ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
