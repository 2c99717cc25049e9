package dev.herald.core.auth;

import dev.herald.core.config.Doc;

/** {@code auth:} access rules that apply to every platform. */
public record AuthConfig(
        @Doc("let anyone on any enabled platform talk to the agent (per-platform allow_all_users is narrower); leave false unless every platform is private")
        boolean allowAllUsers) {

    public static AuthConfig defaults() {
        return new AuthConfig(false);
    }
}
