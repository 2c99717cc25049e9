package dev.herald.app.runtime;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.compress.CompressionSettings;
import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.app.config.HeraldConfig;
import dev.herald.agent.model.ModelConfig;
import dev.herald.agent.model.ModelProfileConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The model profiles of a configuration: {@code model:} as {@value ProfileAgent#DEFAULT}, then {@code models:} in file order. */
final class ModelProfiles {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    private ModelProfiles() {
    }

    /** The profiles, the default (on {@code defaultClient}) first; with {@code --demo} only the default. */
    static List<ProfileAgent.Profile> build(HeraldConfig config, ModelClient defaultClient, boolean demo) {
        List<ProfileAgent.Profile> out = new ArrayList<>();
        out.add(new ProfileAgent.Profile(ProfileAgent.DEFAULT, defaultClient, defaultSettings(config),
                config.model().pricePerMillion().prices()));
        if (demo && !config.models().isEmpty()) {
            log.warn("runtime - --demo: the {} model profile(s) under models: are not used", config.models().size());
            return out;
        }
        for (Map.Entry<String, ModelProfileConfig> e : config.models().entrySet()) {
            ModelProfileConfig p = e.getValue();
            ModelConfig m = config.model();
            ModelSettings s = p.settings(m);
            log.info("runtime - model profile {}: {} at {}{}", e.getKey(), p.name(), s.baseUrl(), p.vision() ? " (vision)" : "");
            out.add(new ProfileAgent.Profile(e.getKey(), new OpenAiCompatibleClient(s), settings(config, p.name(), p.contextTokens(),
                    p.temperature(), p.topP(), p.maxTokens(), p.vision()), p.pricePerMillion().prices()));
        }
        return out;
    }

    /** The default profile's settings, from {@code model:} and {@code agent:}. */
    static AgentSettings defaultSettings(HeraldConfig config) {
        ModelConfig m = config.model();
        return settings(config, m.name(), m.contextTokens(), m.temperature(), m.topP(), m.maxTokens(), m.vision());
    }

    private static AgentSettings settings(HeraldConfig config, String modelName, Integer contextTokens, Double temperature, Double topP,
            Integer maxTokens, boolean vision) {
        ModelConfig m = config.model();
        return new AgentSettings(m.systemPromptText().orElse(null), null, null, config.agent().maxIterations(),
                CompressionSettings.forModel(modelName, contextTokens).withThreshold(config.agent().compressionThreshold()))
                .withSampling(temperature, topP, maxTokens)
                .withVision(vision, m.maxImageBytes());
    }
}
