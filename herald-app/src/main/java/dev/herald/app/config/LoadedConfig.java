package dev.herald.app.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * A validated configuration and where it came from.
 *
 * @param config       the configuration, paths resolved
 * @param file         the YAML file that was read, or would have been
 * @param fileFound    false when the file did not exist and everything is a default
 * @param envOverrides key path to the environment variable that set it
 */
public record LoadedConfig(HeraldConfig config, Path file, boolean fileFound, Map<String, String> envOverrides) {
    public LoadedConfig {
        envOverrides = Map.copyOf(envOverrides);
    }

    /** The effective configuration as YAML-like text, secrets masked, overrides marked. */
    public String effective() {
        return ConfigPrinter.render(config, envOverrides);
    }

    /** "/home/u/.herald/config.yaml", plus "(no such file; built-in defaults)" when it was missing. */
    public String source() {
        return fileFound ? file.toString() : file + " (no such file; built-in defaults)";
    }
}
