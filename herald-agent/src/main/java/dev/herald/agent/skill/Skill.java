package dev.herald.agent.skill;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One valid skill: a folder {@code skills/<name>/} whose {@code SKILL.md} has YAML front matter naming it and saying
 * when to use it, then a Markdown body of instructions (the open Agent Skills layout).
 *
 * @param name        the folder's name, equal to the front matter's {@code name}
 * @param description the front matter's {@code description}: what the skill does and when to use it
 * @param dir         the skill's folder (absolute)
 * @param body        the Markdown after the front matter
 */
public record Skill(String name, String description, Path dir, String body) {
    public Skill {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(body, "body");
    }
}
