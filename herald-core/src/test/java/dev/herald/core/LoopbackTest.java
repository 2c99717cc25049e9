package dev.herald.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LoopbackTest {
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"})
    void isAddress_loopbackLiterals_areLoopback(String literal) {
        assertThat(Loopback.isAddress(literal)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "128.0.0.1", "127.0.0.256", "localhost", "127.example.org", "::2", "::ffff:10.0.0.1", "", "0.0.0.0"})
    void isAddress_otherText_isNotLoopback(String literal) {
        assertThat(Loopback.isAddress(literal)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "LOCALHOST", "localhost:8642", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:8642", "::1", " 127.0.0.9 "})
    void isHost_loopbackHostsWithOrWithoutAPort_areLoopback(String host) {
        assertThat(Loopback.isHost(host)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.example.org", "localhost.example.org", "example.org:127", "0.0.0.0", "[::1]x", "[10.0.0.1]", "10.0.0.1:8642",
            "localhost:80:80", ""})
    void isHost_namesThatOnlyLookLocal_areNotLoopback(String host) {
        assertThat(Loopback.isHost(host)).isFalse();
    }
}
