package dev.herald.web.webhook;

/** How a webhook route proves that a request comes from its sender. */
public enum SignatureStyle {
    /** GitHub (and Gitea, Forgejo): {@code X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body with the secret>}. */
    GITHUB,
    /** GitLab: the secret itself in {@code X-Gitlab-Token}. */
    GITLAB,
    /** No check: anyone who can reach the URL may post (only for trusted networks and tests). */
    NONE
}
