package dev.herald.agent;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a dangerous tool call does where nobody can approve it (webhooks, the API server). */
public enum NonInteractiveApprovals {
    /** It does not run; the model is told why. */
    @JsonProperty("deny")
    DENY,
    /** It runs without asking. */
    @JsonProperty("allow")
    ALLOW
}
