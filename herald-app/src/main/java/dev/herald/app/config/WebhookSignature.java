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
    /** No check (trusted networks and tests only). */
    @JsonProperty("none")
    NONE
}
