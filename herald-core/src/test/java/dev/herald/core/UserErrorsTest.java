package dev.herald.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.StoreException;
import org.junit.jupiter.api.Test;

/** The rule for texts users read: what it refuses, and what operator-style texts become. */
class UserErrorsTest {

    @Test
    void unfit_refusesWhatOnlyTheOperatorShouldSee_andNamesIt() {
        assertThat(UserErrors.unfit("agent - the turn failed unexpectedly (StoreException)")).hasValueSatisfying(
                why -> assertThat(why).contains("log subject", "agent - "));
        assertThat(UserErrors.unfit("It failed (StoreException); see the log")).hasValueSatisfying(why -> assertThat(why).contains("StoreException"));
        assertThat(UserErrors.unfit("failed: java.net.ConnectException")).isPresent();
        assertThat(UserErrors.unfit("The server at http://10.0.0.5/v1 did not answer")).hasValueSatisfying(why -> assertThat(why).contains("URL"));
        assertThat(UserErrors.unfit("could not reach db.internal:5432")).hasValueSatisfying(why -> assertThat(why).contains("db.internal:5432"));
        assertThat(UserErrors.unfit("could not reach 127.0.0.1:8642")).isPresent();
        assertThat(UserErrors.unfit("cannot write /var/lib/herald/herald.db")).hasValueSatisfying(why -> assertThat(why).contains("path"));
        assertThat(UserErrors.unfit("boom\n\tat dev.herald.core.X.run(X.java:12)")).isPresent();
    }

    @Test
    void unfit_acceptsPlainTextsWithCommandsAndModelNames() {
        assertThat(UserErrors.unfit(UserErrors.APOLOGY)).isEmpty();
        assertThat(UserErrors.unfit(UserErrors.REQUEST_FAILED)).isEmpty();
        assertThat(UserErrors.unfit(UserErrors.storeUnavailable())).isEmpty();
        assertThat(UserErrors.unfit("The model is unavailable right now: it could not be reached. Send /new to start over.")).isEmpty();
        assertThat(UserErrors.unfit("gpt-4o-mini refused to answer (finish content_filter); rephrase the request")).isEmpty();
        assertThat(UserErrors.unfit("Error: the answer was empty at 12:30")).isEmpty();
    }

    @Test
    void fromOperatorText_dropsTheSubject_orFallsBackWhenInternalsRemain() {
        assertThat(UserErrors.fromOperatorText("model - llama3 refused to answer (finish content_filter); rephrase the request", "x"))
                .isEqualTo("Llama3 refused to answer (finish content_filter); rephrase the request");
        assertThat(UserErrors.fromOperatorText("agent - the turn failed unexpectedly (StoreException); see the log", "fallback"))
                .isEqualTo("fallback");
        assertThat(UserErrors.fromOperatorText("model - http://127.0.0.1:1/v1 unreachable after 3 attempts", "fallback")).isEqualTo("fallback");
        assertThat(UserErrors.fromOperatorText("Already fine.", "fallback")).isEqualTo("Already fine.");
        assertThat(UserErrors.fromOperatorText(null, "fallback")).isNull();
    }

    @Test
    void forUser_aStoreOutage_saysTheMessageCouldNotBeSaved_anythingElseIsTheApology() {
        assertThat(UserErrors.forUser(new IllegalStateException("bug at db:5432"))).isEqualTo(UserErrors.APOLOGY);
        assertThat(UserErrors.forUser(new RuntimeException(StoreException.outage("turn 7", null, true))))
                .isEqualTo(UserErrors.storeUnavailable()).contains("cannot save messages");
        assertThat(UserErrors.forRequest(new IllegalStateException("x"))).isEqualTo(UserErrors.REQUEST_FAILED);
    }
}
