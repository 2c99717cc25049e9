package dev.herald.app.config;

import dev.herald.core.schedule.SchedulesConfig;
import dev.herald.core.schedule.ScheduleJobConfig;
import dev.herald.core.config.ClosestKey;


import dev.herald.agent.model.ModelProfileConfig;

import dev.herald.core.config.ConfigChecks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks what the configured jobs name against the rest of the configuration: {@code schedules.jobs.<id>.model} is
 * {@code default} or a profile under {@code models:}, and every entry of {@code schedules.jobs.<id>.tools} names a tool
 * as {@code agent.tools} entries do ({@link ToolNames}). A typo stops the load, naming the key, instead of a job that
 * fails at every run.
 */
final class ScheduleJobChoices {
    private ScheduleJobChoices() {
    }

    static void validate(SchedulesConfig schedules, Map<String, ModelProfileConfig> models, List<dev.herald.agent.mcp.McpServerSettings> servers,
            ConfigChecks check) {
        List<String> profiles = new ArrayList<>();
        profiles.add("default");
        profiles.addAll(models.keySet());
        for (Map.Entry<String, ScheduleJobConfig> e : schedules.jobs().entrySet()) {
            String path = "schedules.jobs." + e.getKey();
            ScheduleJobConfig job = e.getValue();
            if (job.model() != null) {
                check.require(profiles.contains(job.model()), path + ".model", "is \"" + job.model() + "\", which names no model profile"
                        + ClosestKey.to(job.model(), profiles).map(k -> " (did you mean \"" + k + "\"?)").orElse("")
                        + "; the profiles are " + String.join(", ", profiles) + " (add one under models:)");
            }
            if (job.tools() != null) {
                ToolNames.validateList(job.tools(), path + ".tools", servers, check);
            }
        }
    }
}
