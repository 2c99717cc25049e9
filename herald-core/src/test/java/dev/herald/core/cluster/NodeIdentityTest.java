package dev.herald.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a node on the same host tells that another node's process is gone, on real processes (Linux: /proc). The start in
 * clock ticks since boot decides, not the start as a wall-clock instant, which a step of the system clock moves.
 */
class NodeIdentityTest {
    private final NodeIdentity me = NodeIdentity.thisProcess(Optional.of("node-me"));
    private Process other;

    @BeforeEach
    void startAnotherProcess() throws Exception {
        other = new ProcessBuilder("sleep", "60").start();
    }

    @AfterEach
    void stopIt() {
        other.destroyForcibly();
    }

    /** A key for process {@code pid} on this host: {@code host|ns|pid|millis|t<ticks>}. */
    private String key(long pid, long startMillis, String ticksPart) {
        String[] mine = me.processKey().split("\\|");
        return mine[0] + "|" + mine[1] + "|" + pid + "|" + startMillis + (ticksPart == null ? "" : "|" + ticksPart);
    }

    private long millis(Process p) {
        return p.info().startInstant().orElseThrow().toEpochMilli();
    }

    @Test
    void thisProcess_hasAKeyWithItsStartInTicksSinceBoot() {
        String[] parts = me.processKey().split("\\|");
        assertThat(parts).hasSize(5);
        assertThat(parts[4]).isEqualTo("t" + NodeIdentity.startTicks(ProcessHandle.current().pid()).orElseThrow());
        assertThat(me.sameHostProcessGone(me.processKey())).isFalse();
    }

    @Test
    void aLiveProcess_isNotGone_evenWhenTheClockWasSteppedSinceItRegistered() {
        long ticks = NodeIdentity.startTicks(other.pid()).orElseThrow();

        assertThat(me.sameHostProcessGone(key(other.pid(), millis(other), "t" + ticks))).isFalse();
        assertThat(me.sameHostProcessGone(key(other.pid(), millis(other) + 1000, "t" + ticks)))
                .as("its wall-clock start, read after a clock step, differs by a second: still the same process").isFalse();
    }

    @Test
    void anotherProcessWithTheSamePid_orNoProcess_isGone() throws Exception {
        long ticks = NodeIdentity.startTicks(other.pid()).orElseThrow();

        assertThat(me.sameHostProcessGone(key(other.pid(), millis(other), "t" + (ticks - 5))))
                .as("the pid now belongs to a process that started later").isTrue();

        long pid = other.pid();
        other.destroyForcibly();
        assertThat(other.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(me.sameHostProcessGone(key(pid, 0, "t" + ticks))).isTrue();
    }

    @Test
    void aKeyWithoutTicks_fromAnOlderHerald_isLeftToTheLease_whileItsProcessRuns() {
        assertThat(me.sameHostProcessGone(key(other.pid(), millis(other) + 1000, null))).isFalse();
        assertThat(me.sameHostProcessGone(key(other.pid(), millis(other), null))).isFalse();
    }

    @Test
    void anotherHostOrNamespace_cannotBeTold() {
        String[] mine = me.processKey().split("\\|");
        assertThat(me.sameHostProcessGone("elsewhere|" + mine[1] + "|1|0|t1")).isFalse();
        assertThat(me.sameHostProcessGone(mine[0] + "|pid:[1]|1|0|t1")).isFalse();
        assertThat(me.sameHostProcessGone(null)).isFalse();
    }
}
