package dev.herald.agent;

/**
 * How the agent talks to its model, beyond the connection.
 *
 * @param systemPrompt sent first on every call; null or blank for none
 * @param temperature  sampling temperature; null leaves the server's default
 * @param maxTokens    the answer's token limit; null leaves the server's default
 */
public record AgentSettings(String systemPrompt, Double temperature, Integer maxTokens) {
    public static final AgentSettings DEFAULT = new AgentSettings(null, null, null);

    public AgentSettings {
        systemPrompt = systemPrompt == null || systemPrompt.isBlank() ? null : systemPrompt;
    }

    public static AgentSettings withSystemPrompt(String prompt) {
        return new AgentSettings(prompt, null, null);
    }
}
