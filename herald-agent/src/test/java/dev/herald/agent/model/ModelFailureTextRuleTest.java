package dev.herald.agent.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.UserErrors;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What chat users read when the model fails follows the one rule for user texts ({@link UserErrors}): for every kind of
 * model failure the operator's message names the endpoint, the user's never does.
 */
class ModelFailureTextRuleTest {
    static final String AT = "http://10.1.2.3:11434/v1";

    @Test
    void everyKindOfModelFailure_readsAsAUserText_withoutTheEndpoint() {
        List<ModelException> failures = List.of(
                ModelException.unauthorized(AT, 401, true),
                ModelException.forbidden(AT, "llama3", 403, "no access"),
                ModelException.modelNotFound("llama3", AT, 404),
                ModelException.endpointNotFound(AT + "/chat/completions", 404),
                ModelException.rejected(AT, 400, "context too long"),
                ModelException.quotaExhausted(AT, 429, "quota"),
                ModelException.rateLimited(AT, 3, 1200, Duration.ofSeconds(30), "slow down"),
                ModelException.serverError(AT, 500, 3, 1200, "overloaded"),
                ModelException.streamError(AT, "broken chunk"),
                ModelException.unreachable(AT, 3, 1200, "connection refused", new java.net.ConnectException("refused")),
                ModelException.idleTimeout(AT, Duration.ofSeconds(120), 1, 120_000, true),
                ModelException.broken(AT, 1, 10, "reset", new java.io.IOException("reset")),
                ModelException.protocol(AT, "not JSON"),
                ModelException.interrupted("stop"));
        for (ModelException e : failures) {
            String user = ModelFailureText.forUser(e);
            assertThat(UserErrors.unfit(user)).as("%s -> %s", e.kind(), user).isEmpty();
            assertThat(user).doesNotContain("10.1.2.3");
        }
        assertThat(UserErrors.unfit(ModelFailureText.unexpected())).isEmpty();
    }
}
