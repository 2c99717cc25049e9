package dev.herald.app.logging;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LogLayoutTest {
    @Test
    void subject_ofAHeraldClass_isItsCapabilityPackage() {
        assertThat(LogLayout.subject("dev.herald.core.gateway.GatewayRunner")).isEqualTo("gateway");
        assertThat(LogLayout.subject("dev.herald.app.config.ConfigLoader")).isEqualTo("config");
    }

    @Test
    void subject_ofANamedLogger_isTheName() {
        assertThat(LogLayout.subject("resumer")).isEqualTo("resumer");
    }

    @Test
    void subject_ofALibraryClass_isTheSimpleClassName() {
        assertThat(LogLayout.subject("org.eclipse.jetty.server.Server")).isEqualTo("Server");
    }
}
