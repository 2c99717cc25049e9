package dev.herald.core.agent;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one turn's caller asked for beyond the message: a model profile, model parameters, tools the caller runs
 * itself, and images. Only the API server sets them (from an OpenAI request); every other turn runs with
 * {@link #NONE}. They live in memory for the turn: a turn resumed after a restart runs with {@code NONE}.
 *
 * @param profile     the model profile by name, or null for the session's own choice (else the default)
 * @param parameters  request fields passed to the model as they are, by name ({@code temperature},
 *                    {@code response_format}, ...), each value JSON text; they win over the profile's
 * @param clientTools tools the caller executes: offered to the model next to Herald's own; a call to one ends the
 *                    turn with {@link dev.herald.core.continuity.TurnOutcome.ToolCallsRequested}
 * @param images      images of the current user message, for a vision model
 */
public record TurnOptions(String profile, Map<String, String> parameters, List<ClientTool> clientTools, List<ImagePart> images) {
    public static final TurnOptions NONE = new TurnOptions(null, Map.of(), List.of(), List.of());

    public TurnOptions {
        parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
        clientTools = clientTools == null ? List.of() : List.copyOf(clientTools);
        images = images == null ? List.of() : List.copyOf(images);
    }

    /**
     * A tool the caller runs: the model sees it like any other; Herald never runs it.
     *
     * @param name           the function name
     * @param description    what it does, for the model; may be empty
     * @param parametersJson its JSON schema as text, or null for none
     */
    public record ClientTool(String name, String description, String parametersJson) {
        public ClientTool {
            Objects.requireNonNull(name, "name");
            description = description == null ? "" : description;
        }
    }

    public boolean hasClientTool(String name) {
        return clientTools.stream().anyMatch(t -> t.name().equals(name));
    }
}
