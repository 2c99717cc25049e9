package dev.herald.app;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HeraldHomeTest {
    private static final Path USER = Path.of("/home/u");

    @Test
    void resolve_optionBeatsVariableBeatsDefault() {
        assertThat(HeraldHome.resolve(Path.of("/opt/h"), Map.of("HERALD_HOME", "/srv/h"), USER)).isEqualTo(Path.of("/opt/h"));
        assertThat(HeraldHome.resolve(null, Map.of("HERALD_HOME", "/srv/h"), USER)).isEqualTo(Path.of("/srv/h"));
        assertThat(HeraldHome.resolve(null, Map.of(), USER)).isEqualTo(Path.of("/home/u/.herald"));
        assertThat(HeraldHome.resolve(null, Map.of("HERALD_HOME", " "), USER)).isEqualTo(Path.of("/home/u/.herald"));
    }

    @Test
    void resolve_tildeInTheVariable_isTheUserHome() {
        assertThat(HeraldHome.resolve(null, Map.of("HERALD_HOME", "~/herald"), USER)).isEqualTo(Path.of("/home/u/herald"));
    }

    @Test
    void resolve_relativeHome_isMadeAbsolute() {
        Path resolved = HeraldHome.resolve(Path.of("rel/h"), Map.of(), USER);

        assertThat(resolved.isAbsolute()).isTrue();
        assertThat(resolved.toString()).endsWith("/rel/h");
    }
}
