package dev.herald.web.webhook;

/** How a webhook route proves that a request comes from its sender. */
public enum SignatureStyle {
    /** GitHub (and Gitea, Forgejo): {@code X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body with the secret>}. */
    GITHUB,
    /** GitLab: the secret itself in {@code X-Gitlab-Token}. */
    GITLAB,
    /**
     * Standard Webhooks (standardwebhooks.com; Svix, many SaaS senders): {@code webhook-signature: v1,<base64
     * HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">}, keyed with the base64 secret after its
     * {@code whsec_} prefix; the timestamp must be within {@link SignatureCheck#TIMESTAMP_TOLERANCE} of now.
     */
    STANDARD,
    /** No check: anyone who can reach the URL may post (only on a loopback listener, for local senders and tests). */
    NONE
}
