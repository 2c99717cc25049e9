package dev.herald.web.webhook;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;

/** One entry of {@code platforms.webhook.routes}: {@code POST /webhooks/<name>}. */
public record WebhookRouteConfig(
        @Doc("shared secret: the HMAC key (github), the token (gitlab) or the whsec_... secret (standard); required unless signature is none")
        Secret secret,
        @Doc("how requests are verified")
        SignatureStyle signature,
        @Doc("prompt template: `{a.b}` inserts the payload's value at that path, `{__raw__}` the whole payload; empty = `{__raw__}`")
        String prompt,
        @Doc("where the reply goes: `log`, or `<platform>:<chat_id>[:<thread_id>]` of an enabled platform")
        String deliver) {

    public WebhookRouteConfig {
        secret = secret == null ? Secret.NONE : secret;
        signature = signature == null ? SignatureStyle.GITHUB : signature;
        prompt = prompt == null ? "" : prompt;
        deliver = deliver == null || deliver.isBlank() ? "log" : deliver.strip();
    }

    public static WebhookRouteConfig defaults() {
        return new WebhookRouteConfig(Secret.NONE, SignatureStyle.GITHUB, "", "log");
    }
}
