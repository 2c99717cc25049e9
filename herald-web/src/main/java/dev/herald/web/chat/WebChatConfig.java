package dev.herald.web.chat;

import dev.herald.core.config.Doc;
import dev.herald.web.oidc.OidcConfig;

/**
 * {@code platforms.webchat:} the browser chat at {@code /}, served on the API server's port next to the admin
 * page ({@code /admin}) and {@code /metrics}. It follows the API server's access rule: loopback only without
 * {@code platforms.api_server.key}, the key (once per browser session) with it.
 */
public record WebChatConfig(
        @Doc("serve the web chat at / on the api_server port (needs platforms.api_server.enabled; /admin and /metrics are served either way)")
        boolean enabled,
        OidcConfig oidc,
        @Doc("let web accounts that are not admins approve dangerous tool calls (shell, files outside the conversation's folder, "
                + "untrusted MCP tools) in their own conversations and over their API keys; off: shell is not offered to them and "
                + "such calls are denied, since they run as Herald's system user, which can read every account's data")
        boolean userApprovals) {

    public WebChatConfig {
        oidc = oidc == null ? OidcConfig.defaults() : oidc;
    }

    public static WebChatConfig defaults() {
        return new WebChatConfig(true, OidcConfig.defaults(), false);
    }
}
