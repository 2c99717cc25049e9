package dev.herald.app.config;

import dev.herald.core.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Writes a config.yaml into a temporary home and loads it with a chosen environment. */
final class ConfigFixture {
    final Path home;
    final Path file;

    ConfigFixture(Path home) {
        this.home = home;
        this.file = home.resolve("config.yaml");
    }

    ConfigFixture write(String yaml) {
        try {
            Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    LoadedConfig load(Map<String, String> env) {
        return new ConfigLoader(env).load(file, false, home);
    }

    LoadedConfig load() {
        return load(Map.of());
    }

    HeraldConfig config(String yaml) {
        return write(yaml).load().config();
    }

    /** The one message of the ConfigException that loading {@code yaml} must raise. */
    String error(String yaml, Map<String, String> env) {
        write(yaml);
        ThrowableAssert.ThrowingCallable load = () -> load(env);
        var thrown = assertThatThrownBy(load).isInstanceOf(ConfigException.class);
        return thrown.actual().getMessage();
    }

    String error(String yaml) {
        return error(yaml, Map.of());
    }
}
