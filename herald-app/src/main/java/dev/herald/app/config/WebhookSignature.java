package dev.herald.app.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a webhook route checks that a request comes from its sender. */
public enum WebhookSignature {
    /** X-Hub-Signature-256: sha256=HMAC of the body (GitHub, Gitea, Forgejo). */
    @JsonProperty("github")
    GITHUB,
    /** X-Gitlab-Token: the secret itself (GitLab). */
    @JsonProperty("gitlab")
    GITLAB,
    /** Standard Webhooks: webhook-id, webhook-timestamp (within 5 minutes) and webhook-signature v1 (Svix and others). */
    @JsonProperty("standard")
    STANDARD,
    /** No check (only on a loopback host: local senders and tests). */
    @JsonProperty("none")
    NONE
}
