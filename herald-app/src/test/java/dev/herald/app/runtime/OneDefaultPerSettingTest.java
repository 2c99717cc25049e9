package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.AgentSettings;
import dev.herald.app.config.GatewayConfig;
import dev.herald.app.config.HeraldConfig;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.web.api.ApiServerPlatform;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A setting has one default, the component's own: a configuration section's defaults() reads it, so an empty
 * config.yaml wires exactly what the components would choose by themselves.
 */
class OneDefaultPerSettingTest {
    @Test
    void theGatewaySection_wiredFromItsDefaults_isTheGatewaysOwnDefaults() {
        GatewaySettings wired = Wiring.settings(GatewayConfig.defaults());

        assertThat(wired).isEqualTo(GatewaySettings.defaults());
    }

    @Test
    void theAgentSection_wiredFromItsDefaults_asksForApprovalAsLongAsTheGatewayWaits() {
        HeraldConfig defaults = HeraldConfig.defaults();

        assertThat(Wiring.settings(defaults.gateway()).approvalTimeout().toSeconds())
                .isEqualTo(defaults.agent().approvalTimeoutSeconds());
    }

    @Test
    void theImageCap_byDefault_isTheSameForTheModelSectionTheAgentAndTheApi() {
        long configured = HeraldConfig.defaults().model().maxImageBytes();

        assertThat(configured).isEqualTo(5L * 1024 * 1024);
        assertThat(AgentSettings.DEFAULT.maxImageBytes()).isEqualTo(configured);
        assertThat(new ApiServerPlatform.Settings("127.0.0.1", 0, null, 1024, Duration.ofSeconds(1), "herald").maxImageBytes())
                .isEqualTo(configured);
    }
}
