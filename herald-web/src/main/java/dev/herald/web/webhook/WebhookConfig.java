package dev.herald.web.webhook;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code platforms.webhook:} inbound webhooks at {@code POST /webhooks/<route>} on the API server's
 * listener ({@code platforms.api_server.host} and {@code port}). Each route checks its sender's signature,
 * builds a prompt from the JSON payload, and delivers the agent's reply to the log or to a chat.
 */
public record WebhookConfig(
        @Doc("serve `POST /webhooks/<route>` on the API server's host and port")
        boolean enabled,
        @Doc("largest request body accepted, in bytes (larger: 413)")
        long maxBodyBytes,
        @Doc("the routes, by name (1-64 letters, digits, '_' or '-')")
        Map<String, WebhookRouteConfig> routes) implements Validated {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern DELIVER = Pattern.compile("log|[a-z][a-z0-9_]{0,31}:[^:\\s]+(:[^:\\s]+)?");

    public WebhookConfig {
        routes = routes == null ? Map.of() : Map.copyOf(routes);
    }

    public static WebhookConfig defaults() {
        return new WebhookConfig(false, WebhookPlatform.Settings.DEFAULT_MAX_BODY_BYTES, Map.of());
    }

    private static boolean isStandardSecret(String secret) {
        try {
            return java.util.Base64.getDecoder().decode(secret.startsWith("whsec_") ? secret.substring(6) : secret).length >= 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(maxBodyBytes >= 1, "max_body_bytes", "must be at least 1, was " + maxBodyBytes);
        check.require(!enabled || !routes.isEmpty(), "routes", "is empty while " + check.path("enabled")
                + " is true; add a route such as routes: { github: { secret: ${GITHUB_WEBHOOK_SECRET}, prompt: \"...\" } }");
        for (Map.Entry<String, WebhookRouteConfig> e : routes.entrySet()) {
            String route = "routes." + e.getKey();
            WebhookRouteConfig r = e.getValue();
            check.require(NAME.matcher(e.getKey()).matches(), route, "is not a valid route name: use 1-64 letters, digits, '_' or '-'");
            check.require(r.signature() == SignatureStyle.NONE || r.secret().isSet(), route + ".secret",
                    "is required with signature " + r.signature().name().toLowerCase(java.util.Locale.ROOT)
                            + "; set it (e.g. secret: ${GITHUB_WEBHOOK_SECRET}) or use signature: none on a trusted network only");
            check.require(r.signature() != SignatureStyle.STANDARD || r.secret().reveal().map(WebhookConfig::isStandardSecret).orElse(true),
                    route + ".secret", "is not a Standard Webhooks secret (whsec_ followed by base64 of at least 16 bytes); copy the "
                            + "secret the sender shows");
            check.require(DELIVER.matcher(r.deliver()).matches(), route + ".deliver",
                    "must be log or <platform>:<chat_id>[:<thread_id>], was \"" + r.deliver() + "\"");
        }
    }
}
