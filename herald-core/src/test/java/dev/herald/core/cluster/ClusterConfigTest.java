package dev.herald.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code cluster:} made into this process's node: a configured id, and the id during a handover from a node of the same id. */
class ClusterConfigTest {
    @Test
    void aConfiguredNodeId_isThisProcesssId_withTheLeaseAsConfigured() {
        ClusterSettings s = new ClusterConfig(true, "node-a", 4.5).settings(null);

        assertThat(s.enabled()).isTrue();
        assertThat(s.identity().id()).isEqualTo("node-a");
        assertThat(s.lease()).isEqualTo(Duration.ofMillis(4500));
        assertThat(s.heartbeat()).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.predecessor()).isNull();
    }

    @Test
    void takingOverFromANodeOfTheConfiguredId_runsAsItsNext_andTheNextHandoverGoesBack() {
        ClusterConfig config = new ClusterConfig(true, "node-a", 15);

        ClusterSettings next = config.settings("node-a");
        ClusterSettings back = config.settings(next.identity().id());

        assertThat(next.identity().id()).isEqualTo("node-a.next");
        assertThat(next.predecessor()).isEqualTo("node-a");
        assertThat(back.identity().id()).isEqualTo("node-a");
    }

    @Test
    void withoutAConfiguredId_everyStartIsANewNode_andTheDefaultsAreTheRegistrysOwn() {
        ClusterSettings s = ClusterConfig.defaults().settings(null);

        assertThat(s.enabled()).isFalse();
        assertThat(s.lease()).isEqualTo(ClusterSettings.DEFAULT_LEASE);
        assertThat(s.identity().id()).isNotBlank().isNotEqualTo(ClusterSettings.single().identity().id());
    }
}
