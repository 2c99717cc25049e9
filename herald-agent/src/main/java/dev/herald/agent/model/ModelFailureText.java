package dev.herald.agent.model;

/**
 * What a chat user reads when the model could not answer. {@link ModelException}'s message is for the
 * operator (it names the endpoint, the HTTP status, the configuration key to fix); a chat user may be
 * anyone the operator let in, so the user's text says only that the model is unavailable and roughly
 * why, with the model's name at most: never its URL, host or port. The operator's text goes to the log
 * and the admin page.
 */
public final class ModelFailureText {
    private ModelFailureText() {
    }

    /** The user's text for a failed model call. */
    public static String forUser(ModelException e) {
        String why = switch (e.kind()) {
            case UNREACHABLE -> "it could not be reached";
            case TIMEOUT -> "it did not answer in time";
            case RATE_LIMITED -> "it is refusing requests for a moment (rate limited)";
            case SERVER, BROKEN -> "it failed while answering";
            case AUTH, FORBIDDEN -> "it refused Herald's credentials";
            case NOT_FOUND -> "it does not offer the configured model";
            case REJECTED -> "it rejected the request (if this conversation is very long, /new starts a fresh one)";
            case PROTOCOL -> "its answer could not be read";
            case INTERRUPTED -> "the call was stopped";
        };
        return unavailable(why, e.retryable());
    }

    /**
     * The notice that follows an answer the model broke off (delivered as far as it came): it says the answer is
     * incomplete, roughly why, and how to get a whole one.
     */
    public static String cutOff(ModelException e) {
        String why = switch (e.kind()) {
            case TIMEOUT -> "the model stopped sending mid-answer";
            case SERVER, RATE_LIMITED -> "the model reported an error mid-answer";
            default -> "the model's answer broke off";
        };
        return "(This answer is incomplete: " + why + ". Send your message again for a complete answer.)";
    }

    /** The user's text for a failure that has no {@link ModelException} (an unexpected error in the client). */
    public static String unexpected() {
        return unavailable("an unexpected error occurred", true);
    }

    private static String unavailable(String why, boolean retryable) {
        return "The model is unavailable right now: " + why + ". " + (retryable ? "Please try again in a moment" : "Please try again later")
                + "; the operator can see the details in Herald's log.";
    }
}
