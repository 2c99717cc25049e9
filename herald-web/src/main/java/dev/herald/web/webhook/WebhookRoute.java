package dev.herald.web.webhook;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One webhook route, {@code POST /webhooks/<name>}: how its requests are verified, how the prompt is built
 * from the payload, and where the reply goes. The route name is the chat and the user of its turns, so one
 * route is one conversation. {@link #toString()} masks the secret.
 *
 * @param name      the route name: 1-64 letters, digits, '_' or '-'
 * @param secret    the shared secret (HMAC key for GitHub, the token for GitLab, {@code whsec_<base64>} for Standard
 *                  Webhooks); null only with {@link SignatureStyle#NONE}
 * @param signature how requests are verified
 * @param prompt    the prompt template ({@link PromptTemplate}); blank means the raw payload
 * @param deliver   where the reply goes
 */
public record WebhookRoute(String name, String secret, SignatureStyle signature, String prompt, Delivery deliver) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public WebhookRoute {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(signature, "signature");
        Objects.requireNonNull(deliver, "deliver");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("webhook - route name '" + name + "' must be 1-64 letters, digits, '_' or '-'");
        }
        secret = secret == null || secret.isEmpty() ? null : secret;
        if (signature != SignatureStyle.NONE && secret == null) {
            throw new IllegalArgumentException("webhook - route " + name + " checks " + signature.name().toLowerCase(java.util.Locale.ROOT)
                    + " signatures but has no secret; set one, or use signature: none on a trusted network only");
        }
        if (signature == SignatureStyle.STANDARD && !SignatureCheck.isStandardSecret(secret)) {
            throw new IllegalArgumentException("webhook - route " + name + " checks standard signatures, but its secret is not "
                    + "base64 of at least 16 bytes after an optional whsec_ prefix; copy the whsec_... secret the sender shows");
        }
        prompt = prompt == null ? "" : prompt;
    }

    @Override
    public String toString() {
        return "route{" + name + ", signature=" + signature.name().toLowerCase(java.util.Locale.ROOT) + ", secret="
                + (secret == null ? "none" : "****") + ", deliver=" + deliver + "}";
    }
}
