package dev.herald.core.agent;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one turn's caller asked for beyond the message: a model profile, model parameters, tools the caller runs
 * itself, images, and a limit on Herald's tools. The API server sets the first four from an OpenAI request, in memory
 * for the turn (a turn of its resumed after a restart runs without them); a scheduled job's profile and tool list
 * come from the stored job, for its turn and for a turn that resumes it (the gateway's {@code TurnOptionsLookup}).
 * Most turns run with {@link #NONE}.
 *
 * @param profile     the model profile by name, or null for the session's own choice (else the default)
 * @param parameters  request fields passed to the model as they are, by name ({@code temperature},
 *                    {@code response_format}, ...), each value JSON text; they win over the profile's
 * @param clientTools tools the caller executes: offered to the model next to Herald's own; a call to one ends the
 *                    turn with {@link dev.herald.core.turn.TurnOutcome.ToolCallsRequested}
 * @param images      images of the current user message, for a vision model
 * @param toolAllowlist which of Herald's tools the turn may use; null = the platform's tools ({@code agent.platform_tools})
 * @param channel     the operator's defaults for the turn's chat ({@code platforms.<type>.channels.<id>}), which the
 *                    chat's own choices win over; null = none
 */
public record TurnOptions(String profile, Map<String, String> parameters, List<ClientTool> clientTools, List<ImagePart> images,
        ToolAllowlist toolAllowlist, ChannelDefaults channel) {
    public static final TurnOptions NONE = new TurnOptions(null, Map.of(), List.of(), List.of());

    public TurnOptions {
        parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
        clientTools = clientTools == null ? List.of() : List.copyOf(clientTools);
        images = images == null ? List.of() : List.copyOf(images);
    }

    /** Options without channel defaults. */
    public TurnOptions(String profile, Map<String, String> parameters, List<ClientTool> clientTools, List<ImagePart> images,
            ToolAllowlist toolAllowlist) {
        this(profile, parameters, clientTools, images, toolAllowlist, null);
    }

    /** Options without a limit on Herald's tools. */
    public TurnOptions(String profile, Map<String, String> parameters, List<ClientTool> clientTools, List<ImagePart> images) {
        this(profile, parameters, clientTools, images, null);
    }

    /** A model profile and a tool limit only (a scheduled job's). */
    public static TurnOptions of(String profile, ToolAllowlist tools) {
        return new TurnOptions(profile, Map.of(), List.of(), List.of(), tools);
    }

    /** These options with {@code defaults} as the chat's channel defaults. */
    public TurnOptions withChannel(ChannelDefaults defaults) {
        return new TurnOptions(profile, parameters, clientTools, images, toolAllowlist, defaults);
    }

    /** These options limited to {@code tools}. */
    public TurnOptions withToolAllowlist(ToolAllowlist tools) {
        return new TurnOptions(profile, parameters, clientTools, images, tools, channel);
    }

    /**
     * A channel's model profile and persona, by name: used where the chat chose none itself ({@code /model},
     * {@code /personality}), before the default.
     *
     * @param profile     the model profile, or null
     * @param personality the persona, or null
     */
    public record ChannelDefaults(String profile, String personality) {
    }

    /**
     * The tools a turn may use, as entries of a tool list ({@code read_file}, {@code github__*}, {@code mcp}); an empty
     * list means no tools.
     *
     * @param entries the allowed tools
     * @param widens  false: only tools the turn's platform has anyway are kept (the intersection: a list a chat user
     *                wrote can never reach further than the chat could); true: the list is the operator's (a
     *                configured job's) and is used as it is, even where the platform's list has fewer tools
     */
    public record ToolAllowlist(List<String> entries, boolean widens) {
        public ToolAllowlist {
            entries = List.copyOf(entries);
        }
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
