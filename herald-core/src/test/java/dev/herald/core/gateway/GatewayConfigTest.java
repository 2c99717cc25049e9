package dev.herald.core.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.lanes.BusyPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code gateway:} made into the gateway's settings: every key reaches its setting, the rest keep the gateway's defaults. */
class GatewayConfigTest {
    @Test
    void everyKey_reachesItsSetting_inTheGatewaysUnits() {
        GatewayConfig config = new GatewayConfig(120, 7.5, 0, BusyPolicy.STEER, 5, 0.25, RestartMode.DRAIN);

        GatewaySettings s = config.settings();

        assertThat(s.freshness().length()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.drainTimeout()).isEqualTo(Duration.ofMillis(7500));
        assertThat(s.startupRestoreTimeout()).isZero();
        assertThat(s.busyPolicy()).isEqualTo(BusyPolicy.STEER);
        assertThat(s.stuckLoopThreshold()).isEqualTo(5);
        assertThat(s.redeliveryInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(s.watchdogInterval()).as("not a key of the file: the gateway's own").isEqualTo(GatewaySettings.defaults().watchdogInterval());
    }

    @Test
    void theDefaults_madeIntoSettings_areTheGatewaysOwnDefaults() {
        assertThat(GatewayConfig.defaults().settings()).isEqualTo(GatewaySettings.defaults());
    }
}
