package dev.herald.web.api;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ModelOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the API's {@code model} field may name: the advertised id ({@code herald}: the conversation's own model, the
 * default for a stateless request) or a model profile by name. Anything else is a 400 listing the names, never a
 * silent replacement.
 */
final class ModelNames {
    private final String alias;
    private final Agent agent;

    ModelNames(String alias, Agent agent) {
        this.alias = alias;
        this.agent = agent;
    }

    /** Every id {@code /v1/models} lists: the alias first, then the profiles. */
    List<String> ids() {
        List<String> ids = new ArrayList<>();
        ids.add(alias);
        agent.models().forEach(o -> ids.add(o.name()));
        return ids;
    }

    /**
     * The profile {@code requested} names, or null for "the conversation's own" (the alias, or no model at all).
     *
     * @throws ApiError 400 naming {@code model} and listing the ids when it names nothing
     */
    String profile(String requested) {
        if (requested == null || requested.equals(alias)) {
            return null;
        }
        for (ModelOption o : agent.models()) {
            if (o.name().equals(requested)) {
                return o.name();
            }
        }
        throw ApiError.badRequest("model '" + ChatRequest.shorten(requested) + "' does not exist here; use one of: "
                + String.join(", ", ids()) + " (GET /v1/models lists them)", "model");
    }

    /**
     * Refuses images for a profile that cannot see them ({@code profile} null = the default): the answer would
     * otherwise ignore them without a word.
     */
    void requireVision(String profile) {
        List<ModelOption> options = agent.models();
        if (options.isEmpty()) {
            throw ApiError.badRequest("this Herald's model cannot see images; remove the image parts", "messages");
        }
        ModelOption chosen = profile == null ? options.getFirst()
                : options.stream().filter(o -> o.name().equals(profile)).findFirst().orElse(options.getFirst());
        if (!chosen.vision()) {
            Optional<String> seeing = options.stream().filter(ModelOption::vision).map(ModelOption::name).reduce((a, b) -> a + ", " + b);
            throw ApiError.badRequest("model '" + (profile == null ? alias : profile) + "' (" + chosen.model() + ") cannot see images; "
                    + seeing.map(s -> "choose one that can: " + s).orElse("no configured model can (set vision: true on one)"), "model");
        }
    }
}
