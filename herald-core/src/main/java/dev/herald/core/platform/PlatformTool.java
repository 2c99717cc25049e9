package dev.herald.core.platform;

import java.util.Objects;
import java.util.Optional;

/**
 * A function a platform plug-in offers the agent (Home Assistant's {@code ha_states}), in terms the core can carry: the
 * arguments and the schema are JSON text, since the core holds no JSON library; herald-agent turns each into one of its
 * tools. Implementations are thread-safe (calls of one turn run concurrently, one tool serves every session) and treat
 * the arguments as hostile: the model wrote them.
 */
public interface PlatformTool {

    /** The name the model calls, {@code [A-Za-z0-9_-]{1,64}}. */
    String name();

    /** What the tool does, for the model. */
    String description();

    /** The JSON schema of the arguments (an object schema), as JSON text. */
    String parametersJson();

    /**
     * Why this call needs a person's approval before it runs, or empty when it may run at once. The loop then asks with
     * the agent's approval flow (the chat's {@code /approve}); a call it cannot show or that was not approved never runs.
     */
    Optional<String> approvalReason(String argumentsJson);

    /** What this call would do, in one line free of secrets: what progress shows and what an approval question asks. */
    String summarize(String argumentsJson);

    /** Runs the call; a refusal or a failure is an {@link Result#error} the model can read, not an exception. */
    Result call(String argumentsJson);

    /**
     * What one call produced, as the model reads it.
     *
     * @param text  the result text
     * @param error true when the call failed or was refused
     */
    record Result(String text, boolean error) {
        public Result {
            Objects.requireNonNull(text, "text");
        }

        public static Result ok(String text) {
            return new Result(text, false);
        }

        public static Result error(String text) {
            return new Result(text, true);
        }
    }
}
