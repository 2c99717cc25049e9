package dev.herald.core.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Who a node is: its id in the registry, and the process behind it. The process key ({@code host|pid-namespace|pid|
 * start|t<start ticks>}) lets a node on the same host (and the same pid namespace) tell at once that another node's
 * process is gone, without waiting for its lease: a restarted gateway's previous incarnation, a node killed on this
 * machine. The process is told by its start in clock ticks since boot ({@code /proc/<pid>/stat}), which nothing changes;
 * the start as a wall-clock instant (the fourth part, all that keys written before had) moves when the system clock is
 * stepped, and compared across processes it once made every node on a host judge every other one gone at the same moment.
 * The fourth part stays only so that a key has five parts: an older Herald reads only four-part keys and leaves any other
 * to the lease, where a four-part key with ticks in it would look to it like a process that started at another time.
 *
 * @param id         the node's id ({@code cluster.node_id}; by default host name, pid and start time)
 * @param host       the host name, read without DNS
 * @param pid        the process id
 * @param processKey host, pid namespace, pid and the process's start time; null when they cannot be read
 */
public record NodeIdentity(String id, String host, long pid, String processKey) {

    public NodeIdentity {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(host, "host");
        if (id.isBlank() || id.length() > 200) {
            throw new IllegalArgumentException("cluster - a node id must have 1 to 200 characters, was \"" + id + "\"");
        }
    }

    /**
     * This process as a node: {@code configuredId} when given, else {@code <host>-<pid>-<start epoch seconds>}, which
     * differs for every start of every process.
     */
    public static NodeIdentity thisProcess(Optional<String> configuredId) {
        ProcessHandle self = ProcessHandle.current();
        String host = hostName();
        Instant start = self.info().startInstant().orElse(Instant.now());
        String id = configuredId.filter(s -> !s.isBlank()).map(String::strip)
                .orElse(host + "-" + self.pid() + "-" + start.getEpochSecond());
        return new NodeIdentity(id, host, self.pid(), processKey(host, self.pid(), start));
    }

    /** A node for a gateway that is not a process of its own (tests, embedding): a fresh id, no process key. */
    public static NodeIdentity embedded(String label) {
        return new NodeIdentity(label + "-" + Long.toString(System.nanoTime() & 0xFFFFFFFFFFL, 36), hostName(), ProcessHandle.current().pid(),
                null);
    }

    /** {@code pid 4242 on host1}: how messages name the process. */
    public String describe() {
        return "pid " + pid + " on " + host;
    }

    /**
     * Whether the process a node registered with {@code otherKey} is known to be gone: it ran on this host in this pid
     * namespace, and no process with its pid and start time exists now. False when it cannot be told (another host,
     * another namespace, no key): then only its lease decides.
     */
    public boolean sameHostProcessGone(String otherKey) {
        if (processKey == null || otherKey == null) {
            return false;
        }
        String[] mine = processKey.split("\\|");
        String[] other = otherKey.split("\\|");
        if (mine.length < 4 || other.length < 4 || !mine[0].equals(other[0]) || !mine[1].equals(other[1])) {
            return false;
        }
        try {
            long pid = Long.parseLong(other[2]);
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            if (p.isEmpty() || !p.get().isAlive()) {
                return true;
            }
            if (other.length < 5 || !other[4].startsWith("t")) {
                return false; // a key without the start in ticks (an older Herald): its lease decides
            }
            OptionalLong ticks = startTicks(pid);
            return ticks.isPresent() && ticks.getAsLong() != Long.parseLong(other[4].substring(1));
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * When process {@code pid} started, in clock ticks since boot (field 22 of {@code /proc/<pid>/stat}, read after the
     * command name, which may hold spaces and parentheses); empty when it cannot be read.
     */
    static OptionalLong startTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return fields.length > 19 ? OptionalLong.of(Long.parseLong(fields[19])) : OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private static String processKey(String host, long pid, Instant start) {
        String ns = pidNamespace();
        OptionalLong ticks = startTicks(pid);
        return ns == null || ticks.isEmpty() ? null : host + "|" + ns + "|" + pid + "|" + start.toEpochMilli() + "|t" + ticks.getAsLong();
    }

    /** The pid namespace of this process ({@code pid:[4026531836]}), or null where /proc does not tell. */
    private static String pidNamespace() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** The host name without a DNS lookup ({@code InetAddress.getLocalHost()} can wait seconds for a resolver). */
    public static String hostName() {
        String host = System.getenv("HOSTNAME");
        for (String file : new String[] {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
            if (host != null && !host.isBlank()) {
                break;
            }
            try {
                host = Files.readString(Path.of(file)).strip();
            } catch (IOException | RuntimeException e) {
                host = null;
            }
        }
        return host == null || host.isBlank() ? "localhost" : host.strip().replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
