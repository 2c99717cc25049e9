package dev.herald.core.schedule;

import dev.herald.core.platform.Platform;
import java.util.List;

/**
 * What a job made in a chat may name: the model profiles Herald has, its tools, and which of them a platform's
 * turns get. The wiring answers from the configuration ({@code models:}, {@code agent.platform_tools}) and the
 * tool registry.
 */
public interface JobChoices {
    /** No profiles and no tools to choose: a job that names either is refused. */
    JobChoices NONE = new JobChoices() {
        @Override
        public List<String> profiles() {
            return List.of();
        }

        @Override
        public List<String> tools() {
            return List.of();
        }

        @Override
        public List<String> allowedOn(Platform platform, List<String> names) {
            return List.of();
        }
    };

    /** The model profiles by name, the default ({@code default}) first. */
    List<String> profiles();

    /** Every tool there is now, by name (built-in and MCP). */
    List<String> tools();

    /** Of {@code names}, in their order, those a turn on {@code platform} gets ({@code agent.platform_tools}, else {@code agent.tools}). */
    List<String> allowedOn(Platform platform, List<String> names);
}
